// The further draws `steptp equiv` and `apply --verify` run by default (LEIR.md §11), as one EquivOptions, for the
// other callers that check as the CLI does (eval's strict stage, benchmarks).
#pragma once
#include "interp/equivalence.hpp"

namespace steptp::interp {

/// EquivOptions with the CLI's default further draws: kAdaptiveExtraSeeds adaptive seeds, kCheapExtraSeeds cheap-check
/// seeds, kCheapBoundaryPairs boundary pairs and kCheapGuidedInputs guided draws (distribution S included; set
/// skewed_further_draws to false to leave it out). Seeds and distributions are EquivOptions' defaults.
inline EquivOptions cli_checker_options() {
  EquivOptions eo;
  eo.extra_seeds_if_insensitive = kAdaptiveExtraSeeds;
  eo.extra_seeds_if_cheap = kCheapExtraSeeds;
  eo.boundary_pairs_if_cheap = kCheapBoundaryPairs;
  eo.guided_inputs_if_cheap = kCheapGuidedInputs;
  return eo;
}

}  // namespace steptp::interp
