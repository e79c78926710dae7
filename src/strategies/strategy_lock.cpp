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

std::vector<std::pair<const StrategyInfo*, std::vector<Site>>> locked_legal_sites(const ir::Task& t) {
  std::vector<std::pair<const StrategyInfo*, std::vector<Site>>> legal;
  for (const auto& s : registry()) {
    std::vector<Site> sites;
    try {
      sites = locked_enumerate(s, t);
    } catch (const std::exception&) {
      continue;
    }
    std::erase_if(sites, [](const Site& x) { return x.params.size() == 0; });
    if (!sites.empty()) legal.emplace_back(&s, std::move(sites));
  }
  return legal;
}

}  // namespace steptp::strategy
