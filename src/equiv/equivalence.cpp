// Equivalence checking (LEIR.md §11): check_equivalence runs its phases in order, each in a file of its own and
// stating its rule there; they share the state of the run (equiv/context.hpp). A phase that decides the verdict
// early (a signature difference, an invalid program, a program that fails to run) stops the list; otherwise each
// further phase draws on only while every draw so far passed, and the verdict is read from the results.
#include "equiv/equivalence.hpp"

#include "equiv/context.hpp"

namespace steptp::equiv {

Result check_equivalence(const ir::Task& original, const ir::Task& candidate, const Options& opt) {
  static constexpr detail::Phase kPhases[] = {
      detail::phase_signature,  // §11 step 1: signatures; both programs valid
      detail::phase_base,       // §11 steps 2-5: seeds x distributions
      detail::phase_adaptive,   // further seeds when an output element barely varied
      detail::phase_cheap,      // further seeds, untyped and typed, for a cheap program
      detail::phase_boundary,   // change points of piecewise-constant outputs, bisected
      detail::phase_guided,     // coverage-guided mutated draws (with the tie check)
  };
  detail::Context c(original, candidate, opt);
  for (const detail::Phase phase : kPhases)
    if (!phase(c)) return *c.early;
  return detail::verdict(c);  // §11 step 6
}

}  // namespace steptp::equiv
