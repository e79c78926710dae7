// The model-form workloads (src/frontend/workloads/model_forms.cpp) against PyTorch: each runs in the reference
// interpreter (f64) on the inputs of tests/frontend/golden/model_forms_torch.json and must give the output that the
// real PyTorch operator gave there (torch.distributions.kl_divergence, nn.GRUCell, torch.lerp, ...; the script
// model_forms_torch.py beside it produced the file). Their declared input ranges are checked too.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "frontend/workloads.hpp"
#include "interp/interpreter.hpp"

using namespace steptp;

namespace {

nlohmann::json golden() {
  std::ifstream in(std::string(STEPTP_SOURCE_DIR) + "/tests/frontend/golden/model_forms_torch.json");
  return nlohmann::json::parse(in);
}

interp::Tensor run(const frontend::Workload& w, const frontend::Params& p, const nlohmann::json& inputs) {
  ir::Task t = frontend::emit(w, p, ir::DType::F64);
  interp::TensorMap in;
  std::size_t i = 0;
  std::string out;
  for (const auto& k : t.known) {
    if (k.role == ir::Role::Output) {
      out = k.name;
      continue;
    }
    interp::Tensor x;
    x.dtype = k.dtype;
    x.shape = k.shape;
    x.data = inputs.at(i++).get<std::vector<double>>();
    EXPECT_EQ(static_cast<std::int64_t>(x.data.size()), k.numel()) << w.name << ": input " << k.name;
    in[k.name] = std::move(x);
  }
  EXPECT_EQ(i, inputs.size()) << w.name;
  interp::Interpreter it(t);
  return it.run(in).at(out);
}

}  // namespace

TEST(WorkloadsModelForms, MatchPyTorch) {
  const auto g = golden();
  std::set<std::string> seen;
  for (const auto& c : g.at("cases")) {
    const std::string name = c.at("workload");
    SCOPED_TRACE(name);
    const frontend::Workload* w = frontend::find_workload(name);
    ASSERT_NE(w, nullptr);
    seen.insert(name);
    frontend::Params p;
    for (const auto& [k, v] : c.at("params").items()) p[k] = v.get<std::int64_t>();
    const auto want = c.at("output").get<std::vector<double>>();
    const interp::Tensor got = run(*w, p, c.at("inputs"));
    ASSERT_EQ(got.data.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.data[i], want[i], 1e-12 + 1e-10 * std::abs(want[i])) << i;
  }
  EXPECT_EQ(seen.size(), 9u);
}

TEST(WorkloadsModelForms, PositiveInputsAreDeclared) {
  // Probabilities, standard deviations and the beta precision are declared positive (sign analysis proves the log rewrites from them);
  // every other input keeps no range.
  const std::map<std::string, std::set<std::string>> positive{
      {"KLDiv_categorical", {"A", "C"}}, {"KLDiv_normal_normal", {"C", "E"}}, {"Beta_variance_mean_precision", {"C"}}};
  for (const auto& w : frontend::workloads()) {
    ir::Task t = frontend::emit(w, frontend::small_params(w), ir::DType::F32);
    auto it = positive.find(w.name);
    for (const auto& k : t.known) {
      const bool want = it != positive.end() && it->second.count(k.name);
      EXPECT_EQ(k.range, want ? ir::ValueRange::Positive : ir::ValueRange::Any) << w.name << " " << k.name;
    }
  }
}
