// ONNX LSTM and GRU against a direct scalar transcription of the ONNX equations (bidirectional, initial states,
// biases, LSTM peepholes, GRU linear_before_reset 0 and 1, layout 1), NegativeLogLikelihoodLoss and
// SoftmaxCrossEntropyLoss on hand-computed values (each reduction, weights, ignore_index, log_prob), and each
// unsupported attribute's error.
#include <gtest/gtest.h>

#include <cmath>

#include "onnx_test_util.hpp"

using namespace steptp;
using test::add_float_init;
using test::add_int64_init;
using test::add_node;
using test::import_error;
using test::make_model;
using test::run_all;
using test::set_int;
using test::set_string;
using test::set_strings;

namespace {

using V = std::vector<double>;

double sig(double x) { return 1 / (1 + std::exp(-x)); }

/// Deterministic small weights: k-th value of a sequence in (-0.5, 0.5).
std::vector<float> vals(std::size_t n, int seed) {
  std::vector<float> v;
  for (std::size_t k = 0; k < n; ++k) v.push_back(static_cast<float>(std::sin(0.7 * static_cast<double>(k) + seed) * 0.5));
  return v;
}

/// One direction of an ONNX LSTM (gates i,o,f,c; peepholes P = i,o,f) or GRU (gates z,r,h) for batch 1, input
/// size 1, hidden H: returns H_t for every time t (index t*H+j); `c` holds the final cell state (LSTM).
V rnn_ref(bool lstm, bool lbr, const V& x, const std::vector<float>& W, const std::vector<float>& R,
          const std::vector<float>& B, const std::vector<float>& P, V h, V& c, bool reverse, std::size_t H) {
  const std::size_t S = x.size(), G = lstm ? 4 : 3;
  V y(S * H);
  for (std::size_t step = 0; step < S; ++step) {
    const std::size_t t = reverse ? S - 1 - step : step;
    auto xw = [&](std::size_t g) { return W[g] * x[t] + B[g]; };
    auto hr = [&](std::size_t g, const V& hv) {
      double s = 0;
      for (std::size_t k = 0; k < H; ++k) s += R[g * H + k] * hv[k];
      return s;
    };
    V hn(H);
    for (std::size_t j = 0; j < H; ++j) {
      auto pre = [&](std::size_t gate) { return xw(gate * H + j) + hr(gate * H + j, h) + B[G * H + gate * H + j]; };
      if (lstm) {
        const double cp = c[j];
        c[j] = sig(pre(2) + P[2 * H + j] * cp) * cp + sig(pre(0) + P[j] * cp) * std::tanh(pre(3));
        hn[j] = sig(pre(1) + P[H + j] * c[j]) * std::tanh(c[j]);
      } else {
        const double z = sig(pre(0)), r = sig(pre(1));
        double cand;
        if (lbr) {
          cand = std::tanh(xw(2 * H + j) + r * (hr(2 * H + j, h) + B[G * H + 2 * H + j]));
        } else {
          V rh(H);
          for (std::size_t k = 0; k < H; ++k) rh[k] = sig(xw(H + k) + hr(H + k, h) + B[G * H + H + k]) * h[k];
          cand = std::tanh(xw(2 * H + j) + hr(2 * H + j, rh) + B[G * H + 2 * H + j]);
        }
        hn[j] = (1 - z) * cand + z * h[j];
      }
    }
    h = hn;
    for (std::size_t j = 0; j < H; ++j) y[t * H + j] = h[j];
  }
  return y;
}

void expect_near(const V& got, const V& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

struct RnnCase {
  bool lstm = true, lbr = false, init = true;
  std::string direction = "bidirectional";
  bool peep = false;
};

/// S=3, batch 1, input 1, hidden 2: Y [3,nd,1,2], Y_h [nd,1,2] (and Y_c) against rnn_ref.
void check_rnn(const RnnCase& cs) {
  const std::int64_t S = 3, H = 2, G = cs.lstm ? 4 : 3, nd = cs.direction == "bidirectional" ? 2 : 1;
  const V x{0.5, -1.0, 2.0};
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> outs = {{"y", {S, nd, 1, H}}, {"yh", {nd, 1, H}}};
  if (cs.lstm) outs.push_back({"yc", {nd, 1, H}});
  auto m = make_model({{"x", {S, 1, 1}}}, outs);
  const auto W = vals(static_cast<std::size_t>(nd * G * H), 1), R = vals(static_cast<std::size_t>(nd * G * H * H), 2),
             B = vals(static_cast<std::size_t>(nd * 2 * G * H), 3), h0 = vals(static_cast<std::size_t>(nd * H), 4),
             c0 = vals(static_cast<std::size_t>(nd * H), 5), P = vals(static_cast<std::size_t>(nd * 3 * H), 6);
  add_float_init(m, "W", {nd, G * H, 1}, W);
  add_float_init(m, "R", {nd, G * H, H}, R);
  add_float_init(m, "B", {nd, 2 * G * H}, B);
  add_float_init(m, "h0", {nd, 1, H}, h0);
  add_float_init(m, "c0", {nd, 1, H}, c0);
  add_float_init(m, "P", {nd, 3 * H}, P);
  std::vector<std::string> in = {"x", "W", "R", "B", "", cs.init ? "h0" : ""};
  if (cs.lstm) in.push_back(cs.init ? "c0" : "");
  if (cs.peep) in.push_back("P");
  std::vector<std::string> on = {"y", "yh"};
  if (cs.lstm) on.push_back("yc");
  auto* n = add_node(m, cs.lstm ? "LSTM" : "GRU", in, on);
  set_int(n, "hidden_size", H);
  set_string(n, "direction", cs.direction);
  if (!cs.lstm) set_int(n, "linear_before_reset", cs.lbr);
  auto got = run_all(m, {x});
  V y(static_cast<std::size_t>(S * nd * H)), yh, yc;
  for (std::int64_t d = 0; d < nd; ++d) {
    auto slice = [&](const std::vector<float>& v, std::size_t len) {
      return std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(d) * len),
                                v.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(d + 1) * len));
    };
    V h(static_cast<std::size_t>(H), 0.0), c(static_cast<std::size_t>(H), 0.0);
    if (cs.init)
      for (std::int64_t j = 0; j < H; ++j) h[j] = h0[d * H + j], c[j] = c0[d * H + j];
    const bool rev = cs.direction == "reverse" || d == 1;
    const auto p = cs.peep ? slice(P, 3 * H) : std::vector<float>(static_cast<std::size_t>(3 * H), 0.0f);
    V yd = rnn_ref(cs.lstm, cs.lbr, x, slice(W, G * H), slice(R, G * H * H), slice(B, 2 * G * H), p, h, c, rev, H);
    for (std::int64_t s = 0; s < S; ++s)
      for (std::int64_t j = 0; j < H; ++j) y[static_cast<std::size_t>((s * nd + d) * H + j)] = yd[s * H + j];
    const std::int64_t last = rev ? 0 : S - 1;
    yh.insert(yh.end(), yd.begin() + last * H, yd.begin() + (last + 1) * H);
    yc.insert(yc.end(), c.begin(), c.end());
  }
  expect_near(got[0], y);
  expect_near(got[1], yh);
  if (cs.lstm) expect_near(got[2], yc);
}

TEST(OnnxRnn, LstmBidirectionalWithStates) { check_rnn({true, false, true, "bidirectional"}); }
TEST(OnnxRnn, LstmReverseZeroStates) { check_rnn({true, false, false, "reverse"}); }
TEST(OnnxRnn, LstmPeepholes) { check_rnn({true, false, true, "bidirectional", true}); }
TEST(OnnxRnn, GruLinearBeforeReset) {
  check_rnn({false, true, true, "bidirectional"});
  check_rnn({false, true, false, "forward"});
}
TEST(OnnxRnn, GruResetBeforeLinear) {
  check_rnn({false, false, true, "bidirectional"});
  check_rnn({false, false, false, "reverse"});
}

TEST(OnnxRnn, Layout1IsTheTransposeOfLayout0) {
  // batch 2, 2 steps, input 1, hidden 1; layout 1 takes x [B,S,I] and gives Y [B,S,nd,H]
  auto build = [](int layout) {
    auto m = make_model({{"x", {2, 2, 1}}},
                        {{"y", layout ? std::vector<std::int64_t>{2, 2, 1, 1} : std::vector<std::int64_t>{2, 1, 2, 1}}});
    add_float_init(m, "W", {1, 4, 1}, {0.5f, -0.3f, 0.8f, 0.2f});
    add_float_init(m, "R", {1, 4, 1}, {0.1f, 0.4f, -0.6f, 0.9f});
    auto* n = add_node(m, "LSTM", {"x", "W", "R"}, {"y"});
    set_int(n, "hidden_size", 1);
    set_int(n, "layout", layout);
    return m;
  };
  // layout 0 x[s][b] = {1, 2, 3, 4}; layout 1 x[b][s] = {1, 3, 2, 4}
  auto y0 = run_all(build(0), {{1, 2, 3, 4}})[0];
  auto y1 = run_all(build(1), {{1, 3, 2, 4}})[0];
  expect_near(y1, {y0[0], y0[2], y0[1], y0[3]});
  EXPECT_NE(y0[0], y0[2]);
}

TEST(OnnxRnn, UnsupportedAttributesNameOpAndNode) {
  auto base = [] {
    auto m = make_model({{"x", {2, 1, 1}}}, {{"y", {2, 1, 1, 1}}});
    add_float_init(m, "W", {1, 4, 1}, {1, 1, 1, 1});
    add_float_init(m, "R", {1, 4, 1}, {1, 1, 1, 1});
    return m;
  };
  auto a = base();
  set_strings(add_node(a, "LSTM", {"x", "W", "R"}, {"y"}, "l"), "activations", {"Relu", "Tanh", "Tanh"});
  EXPECT_EQ(import_error(a), "LEIR-E603 at test: LSTM node 'l': unsupported activation 'Relu' (only the defaults Sigmoid, Tanh, Tanh)");
  auto c = base();
  test::add_attr(add_node(c, "LSTM", {"x", "W", "R"}, {"y"}, "l"), "clip", onnx::AttributeProto::FLOAT)->set_f(1);
  EXPECT_EQ(import_error(c), "LEIR-E603 at test: LSTM node 'l': unsupported attribute clip");
  auto s = base();
  test::add_int64_init(s, "sl", {1});
  add_node(s, "LSTM", {"x", "W", "R", "", "sl"}, {"y"}, "l");
  EXPECT_EQ(import_error(s), "LEIR-E603 at test: LSTM node 'l': unsupported sequence_lens entry 1 (only the full length 2)");
  auto d = base();
  set_string(add_node(d, "LSTM", {"x", "W", "R"}, {"y"}, "l"), "direction", "sideways");
  EXPECT_EQ(import_error(d), "LEIR-E603 at test: LSTM node 'l': unsupported direction 'sideways'");
  auto h = base();
  set_int(add_node(h, "LSTM", {"x", "W", "R"}, {"y"}, "l"), "hidden_size", std::int64_t{1} << 62);
  EXPECT_EQ(import_error(h), "LEIR-E603 at test: LSTM node 'l': hidden_size 4611686018427387904 but R has 1 columns");
}

/// A loss node on x [2,3] (float) and target [2] (int64), with optional weight, attributes set by `f`.
template <class F>
onnx::ModelProto loss_model(const std::string& op, const std::string& reduction, bool weight, bool log_prob, F&& f) {
  std::vector<std::pair<std::string, std::vector<std::int64_t>>> outs = {
      {"y", reduction == "none" ? std::vector<std::int64_t>{2} : std::vector<std::int64_t>{}}};
  if (log_prob) outs.push_back({"lp", {2, 3}});
  auto m = make_model({{"x", {2, 3}}, {"t", {2}}}, outs);
  test::set_input_type(m, 1, onnx::TensorProto::INT64);
  if (weight) add_float_init(m, "w", {3}, {1, 2, 3});
  std::vector<std::string> o = {"y"};
  if (log_prob) o.push_back("lp");
  auto* n = add_node(m, op, {"x", "t", weight ? "w" : ""}, o, "loss");
  set_string(n, "reduction", reduction);
  f(n);
  return m;
}

TEST(OnnxLoss, NegativeLogLikelihoodReductions) {
  const V x{-1, -2, -3, -4, -5, -6}, t{1, 0};
  auto none = [](onnx::NodeProto*) {};
  EXPECT_EQ(run_all(loss_model("NegativeLogLikelihoodLoss", "none", false, false, none), {x, t})[0], (V{2, 4}));
  EXPECT_EQ(run_all(loss_model("NegativeLogLikelihoodLoss", "sum", false, false, none), {x, t})[0], (V{6}));
  EXPECT_EQ(run_all(loss_model("NegativeLogLikelihoodLoss", "mean", false, false, none), {x, t})[0], (V{3}));
  // weights w[1]=2, w[0]=1: mean = (2*2 + 1*4) / (2 + 1)
  EXPECT_DOUBLE_EQ(run_all(loss_model("NegativeLogLikelihoodLoss", "mean", true, false, none), {x, t})[0][0], 8.0 / 3);
  // ignore_index 0 drops the second element: mean = 2*2 / 2
  auto ig = [](onnx::NodeProto* n) { set_int(n, "ignore_index", 0); };
  EXPECT_EQ(run_all(loss_model("NegativeLogLikelihoodLoss", "mean", true, false, ig), {x, t})[0], (V{2}));
  EXPECT_EQ(run_all(loss_model("NegativeLogLikelihoodLoss", "none", false, false, ig), {x, t})[0], (V{2, 0}));
}

TEST(OnnxLoss, SoftmaxCrossEntropyWithLogProb) {
  // rows {0,0,0} and {1,2,3}; targets 0 and 2
  const V x{0, 0, 0, 1, 2, 3}, t{0, 2};
  const double l0 = std::log(3.0), l1 = std::log(1 + std::exp(-1.0) + std::exp(-2.0));
  auto none = [](onnx::NodeProto*) {};
  auto y = run_all(loss_model("SoftmaxCrossEntropyLoss", "none", false, true, none), {x, t});
  expect_near(y[0], {l0, l1});
  expect_near(y[1], {-l0, -l0, -l0, -2 - l1, -1 - l1, -l1});
  expect_near(run_all(loss_model("SoftmaxCrossEntropyLoss", "mean", false, false, none), {x, t})[0], {(l0 + l1) / 2});
  expect_near(run_all(loss_model("SoftmaxCrossEntropyLoss", "sum", true, false, none), {x, t})[0], {l0 + 3 * l1});
  expect_near(run_all(loss_model("SoftmaxCrossEntropyLoss", "mean", true, false, none), {x, t})[0], {(l0 + 3 * l1) / 4});
  auto ig = [](onnx::NodeProto* n) { set_int(n, "ignore_index", 2); };
  expect_near(run_all(loss_model("SoftmaxCrossEntropyLoss", "mean", true, false, ig), {x, t})[0], {l0});
}

TEST(OnnxLoss, SpatialDimensions) {
  // x [N=1, C=2, D=2]: class 0 = {-1, -2}, class 1 = {-3, -4}; targets {1, 0} -> {3, 2}
  auto m = make_model({{"x", {1, 2, 2}}, {"t", {1, 2}}}, {{"y", {1, 2}}});
  test::set_input_type(m, 1, onnx::TensorProto::INT64);
  set_string(add_node(m, "NegativeLogLikelihoodLoss", {"x", "t"}, {"y"}), "reduction", "none");
  EXPECT_EQ(run_all(m, {{-1, -2, -3, -4}, {1, 0}})[0], (V{3, 2}));
}

TEST(OnnxLoss, Errors) {
  auto none = [](onnx::NodeProto*) {};
  EXPECT_EQ(import_error(loss_model("SoftmaxCrossEntropyLoss", "max", false, false, none)),
            "LEIR-E603 at test: SoftmaxCrossEntropyLoss node 'loss': unsupported reduction 'max'");
  auto m = loss_model("NegativeLogLikelihoodLoss", "sum", false, false, none);
  test::set_input_type(m, 1, onnx::TensorProto::FLOAT);
  EXPECT_EQ(import_error(m), "LEIR-E603 at test: NegativeLogLikelihoodLoss node 'loss': the target must be an integer tensor");
}

}  // namespace
