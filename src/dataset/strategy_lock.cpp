#include "dataset/strategy_lock.hpp"

#include <mutex>

namespace steptp::dataset {
namespace {
std::recursive_mutex& global_mu() {
  static std::recursive_mutex m;
  return m;
}
bool needs_lock(const strategy::StrategyInfo& s) { return s.family == strategy::Family::Algebraic; }
}  // namespace

std::vector<strategy::Site> locked_enumerate(const strategy::StrategyInfo& s, const ir::Task& t) {
  if (!needs_lock(s)) return s.enumerate(t);
  std::lock_guard<std::recursive_mutex> lock(global_mu());
  return s.enumerate(t);
}

strategy::Applied locked_apply(const strategy::StrategyInfo& s, const ir::Task& t, const strategy::Candidate& c) {
  if (!needs_lock(s)) return s.apply(t, c);
  std::lock_guard<std::recursive_mutex> lock(global_mu());
  return s.apply(t, c);
}

}  // namespace steptp::dataset
