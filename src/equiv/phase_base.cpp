// Phase "base" of the equivalence check (LEIR.md §11 steps 2-5): both programs run on the draws of every seed of
// `seeds` with every distribution of `dists` (make_inputs; fixed buffers keep their given values), and every
// output element is compared (equiv/judge.cpp): a program that fails to run decides the verdict (E502, E503) at
// once; mismatches (E504) and degenerate outputs (E505) are collected, and the further phases run only while there
// are none.
#include "equiv/context.hpp"

namespace steptp::equiv::detail {

bool phase_base(Context& c) {
  for (std::uint64_t seed : c.opt.seeds)
    for (Distribution dist : c.opt.dists)
      if (!run_draw(c, seed, dist)) return false;
  return true;
}

}  // namespace steptp::equiv::detail
