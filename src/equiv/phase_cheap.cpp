// Phase "cheap" of the equivalence check (LEIR.md §11 step 7.2; Options::Cheap): a small program is cheap to check
// further, so when every draw passed, up to Options::Cheap::extra_seeds further seeds are drawn with every
// distribution of the further draws, untyped and (unless the check is typed already) typed, stopping at the first
// mismatch, within kCheapCheckBudget statement executions. An original that cannot run in §8.2 precision on a typed
// draw gives no verdict there.
#include <algorithm>
#include <vector>

#include "equiv/context.hpp"

namespace steptp::equiv::detail {

bool phase_cheap(Context& c) {
  const Options& opt = c.opt;
  if (!c.passing() || opt.cheap.extra_seeds == 0 || opt.seeds.empty()) return true;
  const std::uint64_t per_seed =
      std::max<std::uint64_t>(1, c.done_before / c.draws) * c.further.size() * (opt.typed ? 1 : 2);
  const std::uint64_t extra = std::min<std::uint64_t>(opt.cheap.extra_seeds, kCheapCheckBudget / per_seed);
  const std::uint32_t before = c.r.extra_seeds;
  for (std::uint64_t i = 0; i < extra && c.passing(); ++i, ++c.next) {
    for (const bool typed : opt.typed ? std::vector<bool>{true} : std::vector<bool>{false, true}) {
      c.ro.typed = typed;
      for (Distribution dist : c.further) {
        if (c.r.has_mismatch || run_draw(c, c.next, dist)) continue;
        // An original that cannot run in §8.2 precision on this draw (an f16 overflow into a conversion) gives
        // no verdict here; an untyped check does not become inconclusive because of it.
        if (typed && !opt.typed && c.early->code == code_text(Code::E502)) {
          c.early.reset();
          continue;
        }
        return false;
      }
    }
    c.ro.typed = opt.typed;
    ++c.r.extra_seeds;
  }
  if (c.r.extra_seeds > before)
    c.note(std::to_string(c.r.extra_seeds - before) + " added" + c.with_s + ", untyped and typed: a cheap check");
  return true;
}

}  // namespace steptp::equiv::detail
