// Helpers for the special-strategy tests (entries 36, 40, 41, 42): the catalogue's softmax pieces as compact LEIR.
#pragma once
#include <string>

#include "graph_memory_test_util.hpp"

namespace steptp::strategy::testing {

/// Max nest, sum nest and normalisation over scores `y` (a compact reference such as "A_{tx,a}") of a 8x6 task.
inline std::string max_nest(const std::string& y, const std::string& m = "D") {
  return "B^{8}_{tx=0}L^{6}_{a=0}[" + m + "_{tx}=max(" + m + "_{tx}," + y + ");];";
}
inline std::string sum_nest(const std::string& y, const std::string& m = "D", const std::string& s = "E") {
  return "B^{8}_{tx=0}L^{6}_{a=0}[" + s + "_{tx}=" + s + "_{tx}+exp(" + y + "-" + m + "_{tx});];";
}
inline std::string div_nest(const std::string& y, const std::string& p = "C", const std::string& m = "D",
                            const std::string& s = "E") {
  return "B^{8}_{tx=0}L^{6}_{a=0}[" + p + "_{tx,a}=exp(" + y + "-" + m + "_{tx})/" + s + "_{tx};];";
}

}  // namespace steptp::strategy::testing
