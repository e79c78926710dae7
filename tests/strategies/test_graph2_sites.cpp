// Site coverage of the graph strategies 3-8 over the built-in workloads (small shapes), by workload name: a
// strategy that stops matching the pattern it exists for fails here, not silently in the dataset.
//  - expression_splitting: every softmax and attention workload (exp(y-M) inside the normalisation);
//  - common_subexpression_elimination: every softmax and attention workload (exp(y-M) in the sum and in the
//    normalisation);
//  - expression_reorder: every attention workload (the independent Q/K/V projection chains);
//  - tensor_concat_to_fuse_operators: the same unary operator on two tensors (exp_exp, log_log, abs_abs, sqrt_sqrt)
//    and every GQA variant (the consecutive K and V projections of one input);
//  - tensor_split_to_decouple_operators: every matmul, convolution and attention workload;
//  - dead_code_elimination: cumsum_exclusive (its shifted copy leaves one written element unread).
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "strategies/registry.hpp"

namespace fe = steptp::frontend;
namespace st = steptp::strategy;

namespace {
bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }
bool contains(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }
bool is_attention(const std::string& n) { return starts(n, "MHA") || starts(n, "GQA") || starts(n, "MQA"); }
bool is_softmax(const std::string& n) {
  return is_attention(n) || ((contains(n, "Softmax") || contains(n, "softmax")) && !contains(n, "LogSoftmax"));
}
}  // namespace

TEST(GraphSites, EveryWorkloadWithThePatternHasASite) {
  std::vector<std::string> missing;
  std::size_t checked = 0;
  for (const auto& w : fe::workloads()) {
    std::vector<const char*> want;
    if (is_softmax(w.name)) want.insert(want.end(), {"expression_splitting", "common_subexpression_elimination"});
    if (is_attention(w.name)) want.push_back("expression_reorder");
    if (starts(w.name, "GQA") || w.name == "exp_exp" || w.name == "log_log" || w.name == "abs_abs" ||
        w.name == "sqrt_sqrt")
      want.push_back("tensor_concat_to_fuse_operators");
    if (w.family == "matmul" || w.family == "conv" || w.family == "attention")
      want.push_back("tensor_split_to_decouple_operators");
    if (w.name == "cumsum_exclusive") want.push_back("dead_code_elimination");
    if (want.empty()) continue;
    auto t = fe::emit(w, fe::small_params(w), steptp::ir::DType::F32);
    for (const char* s : want) {
      ++checked;
      if (st::find(s)->enumerate(t).empty()) missing.push_back(std::string(s) + ":" + w.name);
    }
  }
  EXPECT_GE(checked, 300u);
  EXPECT_TRUE(missing.empty()) << ::testing::PrintToString(missing);
}
