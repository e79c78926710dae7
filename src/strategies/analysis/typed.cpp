#include "strategies/analysis/typed.hpp"

#include <string>

#include "ir/printer.hpp"

namespace steptp::strategy::analysis {

std::string task_memo_key(const ir::Task& t) {
  std::string key = ir::print_program(t.program);
  for (const auto& k : t.known) {
    key += '\x1f' + k.name + ':' + std::to_string(static_cast<int>(k.role)) + ':' +
           std::to_string(static_cast<int>(k.dtype)) + ':' + std::to_string(static_cast<int>(k.range));
    for (auto d : k.shape) key += ',' + std::to_string(d);
  }
  return key;
}

std::shared_ptr<const TypedTask> typed_task(const ir::Task& t) {
  std::string key = task_memo_key(t);
  thread_local std::string last_key;
  thread_local std::shared_ptr<const TypedTask> last;
  if (last && key == last_key) return last;
  auto tt = std::make_shared<TypedTask>();
  tt->task = t;
  tt->analysis = ir::analyze(tt->task);
  last_key = std::move(key);
  last = std::move(tt);
  return last;
}

}  // namespace steptp::strategy::analysis
