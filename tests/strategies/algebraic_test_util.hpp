// Shared by the algebraic strategy tests: the catalogue's vector task (A, D, E inputs of 8 elements, optionally with
// declared ranges; C the output), the `B^{8}_{tx=0}[...]` wrapper of one statement, and the Guard configuration.
#pragma once
#include <string>

#include "graph_memory_test_util.hpp"
#include "strategies/config.hpp"

namespace steptp::strategy::testing {

using VR = ir::ValueRange;

inline ir::Task vec_task(const std::string& text, VR ra = VR::Any, VR rd = VR::Any, VR re = VR::Any) {
  return make_task(text, {{"A", ir::Role::Input, {8}, ir::DType::F32, ra},
                          {"D", ir::Role::Input, {8}, ir::DType::F32, rd},
                          {"E", ir::Role::Input, {8}, ir::DType::F32, re},
                          {"C", ir::Role::Output, {8}}});
}

/// The one-statement program `B^{8}_{tx=0}[stmt;];` with the catalogue's superscripts expanded.
inline std::string body(const std::string& stmt) { return expand_refs("B^{8}_{tx=0}[" + stmt + ";];"); }

/// A configuration whose domain policy is Guard (STRATEGIES.md §6).
inline StrategyConfig guard_config() {
  StrategyConfig c;
  c.domain_policy = DomainPolicy::Guard;
  return c;
}

}  // namespace steptp::strategy::testing

using st::testing::body;
using st::testing::guard_config;
using st::testing::vec_task;
using VR = steptp::ir::ValueRange;
