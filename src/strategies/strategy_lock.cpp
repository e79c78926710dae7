#include "strategies/strategy_lock.hpp"

#include <mutex>

namespace steptp::strategy {
namespace {
std::recursive_mutex& global_mu() {
  static std::recursive_mutex m;
  return m;
}
bool needs_lock(const StrategyInfo& s) { return s.family == strategy::Family::Algebraic; }
}  // namespace

std::vector<Site> locked_enumerate(const StrategyInfo& s, const ir::Task& t) {
  if (!needs_lock(s)) return s.enumerate(t);
  std::lock_guard<std::recursive_mutex> lock(global_mu());
  return s.enumerate(t);
}

Applied locked_apply(const StrategyInfo& s, const ir::Task& t, const Candidate& c) {
  if (!needs_lock(s)) return s.apply(t, c);
  std::lock_guard<std::recursive_mutex> lock(global_mu());
  return s.apply(t, c);
}

}  // namespace steptp::strategy
