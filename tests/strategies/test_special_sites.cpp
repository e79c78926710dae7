// Site coverage of the special strategies over the built-in workloads (small shapes): every workload that holds
// a softmax must offer online_softmax, every attention workload flashattention_wo_tiling, every workload with a
// max reduction normal_loop_max_to_prefix_max. The lists are derived from the workload table by name. (Enumeration
// time is measured by bench/bench_strategies, not asserted here.)
#include <gtest/gtest.h>

#include "frontend/workloads.hpp"
#include "strategies/registry.hpp"

namespace fe = steptp::frontend;
namespace st = steptp::strategy;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool is_attention(const std::string& n) { return n.rfind("MHA", 0) == 0 || n.rfind("GQA", 0) == 0 || n.rfind("MQA", 0) == 0; }
// A softmax (exp(y-M)/S normalisation); log-softmax normalises with a log and is no online_softmax site. The
// softmax over dim 0 reduces over the bound loop tx: its max is not over a serial loop, so it is no site (the
// prefix forms run sequentially along k).
bool has_softmax(const std::string& n) {
  return is_attention(n) ||
         ((contains(n, "Softmax") || contains(n, "softmax")) && !contains(n, "LogSoftmax") && n != "Softmax_dim0");
}
bool has_max_reduction(const std::string& n) {
  return has_softmax(n) || contains(n, "LogSoftmax") || contains(n, "Max_reduction");
}

std::size_t sites(const char* strategy, const steptp::ir::Task& t) { return st::find(strategy)->enumerate(t).size(); }
}  // namespace

TEST(SpecialSites, EveryWorkloadWithThePatternHasASite) {
  std::vector<std::string> softmax, attention, maxred, missing;
  for (const auto& w : fe::workloads()) {
    if (has_softmax(w.name)) softmax.push_back(w.name);
    if (is_attention(w.name)) attention.push_back(w.name);
    if (has_max_reduction(w.name)) maxred.push_back(w.name);
    if (!has_max_reduction(w.name)) continue;
    auto t = fe::emit(w, fe::small_params(w), steptp::ir::DType::F32);
    if (sites("normal_loop_max_to_prefix_max", t) == 0) missing.push_back("prefix_max:" + w.name);
    if (has_softmax(w.name)) {
      if (sites("online_softmax", t) == 0) missing.push_back("online_softmax:" + w.name);
      if (sites("normal_loop_summation_on_exp_to_prefix_summation_on_exp", t) == 0)
        missing.push_back("prefix_sum_exp:" + w.name);
    }
    if (is_attention(w.name) && sites("flashattention_wo_tiling", t) == 0) missing.push_back("flash:" + w.name);
  }
  EXPECT_GE(softmax.size(), 60u);  // 51 attention variants + level-1/custom softmaxes + fused chains
  EXPECT_EQ(attention.size(), 51u);
  EXPECT_GE(maxred.size(), softmax.size() + 2);
  // Two identical zero-padded convolutions (entry 35): the padded conv-conv chains.
  for (const char* name : {"conv1d_conv1d_padding", "conv2d_conv2d_padding", "conv3d_conv3d_padding"}) {
    const auto* w = fe::find_workload(name);
    ASSERT_NE(w, nullptr) << name;
    auto t = fe::emit(*w, fe::small_params(*w), steptp::ir::DType::F32);
    if (sites("partially_equivalent_then_correct", t) == 0) missing.push_back(std::string("petc:") + name);
  }
  EXPECT_TRUE(missing.empty()) << ::testing::PrintToString(missing);
}
