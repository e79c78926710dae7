// Level-2 Conv fused chains. Constants and params are created in the order of the reference's known lists.
#include "frontend/workloads/fused_common.hpp"

namespace steptp::frontend::wl::fused {

namespace {
using U = std::function<std::string(const std::string&)>;
U lit_op(const std::string& op, const std::string& lit) { return [op, lit](const std::string& x) { return x + op + lit; }; }
Workload cw(const std::string& name, int nd, std::vector<ParamSpec> ps, BuildFn f, CheckFn c = {}) {
  (void)nd;
  return make(name, "level2", "fused", std::move(ps), dt_float(), std::move(f), std::move(c));
}
std::vector<ParamSpec> with_groups(std::vector<ParamSpec> ps, std::int64_t gdef) {
  ps.push_back({"groups", gdef, 1, 16, 2});
  return ps;
}
}  // namespace

void add_conv_chains(std::vector<Workload>& v) {
  v.push_back(cw("Conv3d_GroupNorm_Mean", 3, with_groups(conv_params(3, 128, 32, 32), 8), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3)), gw = g.param({P(p, "out_ch")}), gb = g.param({P(p, "out_ch")});
    T c = conv_s1(g, x, w, 3);
    T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
    g.mark_output(mean(g, d, {1, 2, 3, 4}, false));
  }, divisible("out_ch", "groups")));
  v.push_back(cw("Conv3d_HardSwish_ReLU_Softmax_Mean", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = unary(g, c, hardswish_e);
    T e = unary(g, d, relu_e);
    T f = softmax(g, e, 1);
    g.mark_output(mean(g, f, {2, 3, 4}, false));
  }));
  v.push_back(cw("Conv2d_Min_Add_Multiply", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T cv = g.constant({});
    g.constant(chan(p, 2));
    T sc = g.constant({});
    T bias = g.param(chan(p, 2)), w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = map(g, {c, cv}, [](const auto& r) { return "min(" + r[0] + "," + r[1] + ")"; });
    T e = binary(g, d, bias, "+");
    g.mark_output(binary(g, e, sc, "*"));
  }));
  v.push_back(cw("Conv2d_Subtract_HardSwish_MaxPool_Mish", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T sv = g.constant({});
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = binary(g, c, sv, "-");
    T e = unary(g, d, hardswish_e);
    T f = pool2(g, e, 2, true);
    g.mark_output(mish(g, f));
  }));
  v.push_back(cw("Conv3d_Max_LogSumExp_ReLU", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3));
    T c = conv(g, x, w, ConvCfg{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1}, T{});
    T d = pool2(g, c, 3, true);
    T e = logsumexp(g, d, 1, true);
    g.mark_output(unary(g, e, relu_e));
  }));
  v.push_back(cw("Conv2d_Subtract_Tanh_Subtract_AvgPool", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T s1 = g.constant({}), s2 = g.constant({});
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = binary(g, c, s1, "-");
    T e = tanh_(g, d);
    T f = binary(g, e, s2, "-");
    g.mark_output(pool2(g, f, 2, false));
  }));
  v.push_back(cw("Conv3d_Mish_Tanh", 3, conv_params(3, 64, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = mish(g, c);
    g.mark_output(tanh_(g, d));
  }));
  v.push_back(cw("Conv3d_Scaling_Tanh_Multiply_Sigmoid", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    g.constant(chan(p, 3));
    g.constant(chan(p, 3));
    T sc = g.param(chan(p, 3)), bias = g.param(chan(p, 3)), w = g.param(conv_w(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = binary(g, c, sc, "*");
    T e = tanh_(g, d);
    T f = binary(g, e, bias, "*");
    g.mark_output(unary(g, f, sigmoid_e));
  }));
  v.push_back(cw("Conv2d_Activation_BatchNorm", 2, conv_params(2, 128, 30, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T w = g.param(conv_w(p, 2)), bw = g.param({P(p, "out_ch")}), bb = g.param({P(p, "out_ch")});
    T c = conv_s1(g, x, w, 2);
    T d = unary(g, c, softplus_e);
    T e = tanh_(g, d);
    T f = binary(g, e, c, "*");
    g.mark_output(batchnorm(g, f, bw, bb, 1e-5));
  }));
  v.push_back(cw("Conv2d_Multiply_LeakyReLU_GELU", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    g.constant(chan(p, 2));
    T m = g.param(chan(p, 2)), w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = binary(g, c, m, "*");
    T e = unary(g, d, [](const std::string& s) { return leaky_e(s, 0.01); });
    g.mark_output(unary(g, e, gelu_e));
  }));
  v.push_back(cw("Conv2d_AvgPool_Sigmoid_Sum", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = pool2(g, c, 2, false);
    T e = unary(g, d, sigmoid_e);
    g.mark_output(sum(g, e, {1, 2, 3}, false));
  }));
  v.push_back(cw("Conv2d_GELU_GlobalAvgPool", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = unary(g, c, gelu_e);
    T e = mean(g, d, {2, 3}, true);
    T f = squeeze(g, e, -1);
    g.mark_output(squeeze(g, f, -1));
  }));
  v.push_back(cw("Conv2d_HardSwish_ReLU", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = unary(g, c, hardswish_e);
    g.mark_output(unary(g, d, relu_e));
  }));
  v.push_back(cw("Conv3d_Softmax_MaxPool_MaxPool", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = softmax(g, c, 1);
    T e = pool2(g, d, 3, true);
    g.mark_output(pool2(g, e, 3, true));
  }));
  v.push_back(cw("Conv2d_Divide_LeakyReLU", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T dv = g.constant({});
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = binary(g, c, dv, "/");
    g.mark_output(unary(g, d, [](const std::string& s) { return leaky_e(s, 0.01); }));
  }));
  v.push_back(cw("Conv2d_Tanh_Scaling_BiasAdd_Max", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T sc = g.constant({});
    g.constant(chan(p, 2));
    T bias = g.param(chan(p, 2)), w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = tanh_(g, c);
    T e = binary(g, d, sc, "*");
    T f = binary(g, e, bias, "+");
    g.mark_output(pool2(g, f, 2, true));
  }));
  v.push_back(cw("Conv2d_Subtract_Subtract_Mish", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T s1 = g.constant({}), s2 = g.constant({});
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = binary(g, c, s1, "-");
    T e = binary(g, d, s2, "-");
    g.mark_output(mish(g, e));
  }));
  v.push_back(cw("Conv3d_LeakyReLU_Sum_Clamp_GELU", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    g.constant(chan(p, 3));
    T st = g.param(chan(p, 3)), w = g.param(conv_w(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = unary(g, c, [](const std::string& s) { return leaky_e(s, 0.2); });
    T e = binary(g, d, st, "+");
    T f = unary(g, e, [](const std::string& s) { return hardtanh_e(s, -1.0, 1.0); });
    g.mark_output(unary(g, f, gelu_e));
  }));

  // ---- further level-2 Conv chains (not in the reference corpus)
  struct Simple {
    const char* name;
    int nd;
    std::vector<U> acts;
  };
  for (const Simple& s : {Simple{"Conv2D_ReLU_BiasAdd", 2, {relu_e, lit_op("+", "0.1")}},
                          Simple{"Conv2d_ReLU_HardSwish", 2, {relu_e, hardswish_e}},
                          Simple{"Conv2d_Min_Tanh_Tanh", 2, {[](const std::string& x) { return "min(" + x + ",0.5)"; }}},
                          Simple{"Conv2d_Scaling_Min", 2, {lit_op("*", "2.0")}},
                          Simple{"Conv2d_Mish_Mish", 2, {}},
                          Simple{"Conv3d_ReLU_LeakyReLU_GELU_Sigmoid_BiasAdd", 3,
                                 {relu_e, [](const std::string& x) { return leaky_e(x, 0.01); }, gelu_e, sigmoid_e}},
                          Simple{"Conv2d_GELU_Sigmoid", 2, {gelu_e, sigmoid_e}},
                          Simple{"Conv3d_Softplus_Scale", 3, {softplus_e, lit_op("*", "0.5")}}}) {
    std::string nm = s.name;
    int nd = s.nd;
    std::vector<U> acts = s.acts;
    v.push_back(cw(nm, nd, conv_params(nd, 128, 32, 32), [nm, nd, acts](Graph& g, const Params& p) {
      T x = g.input(img(p, nd));
      T w = g.param(conv_w(p, nd));
      T y = conv_s1(g, x, w, nd);
      for (const auto& f : acts) y = unary(g, y, f);
      if (nm == "Conv2d_Min_Tanh_Tanh") {
        y = tanh_(g, y);
        y = tanh_(g, y);
      } else if (nm == "Conv2d_Mish_Mish") {
        y = mish(g, y);
        y = mish(g, y);
      } else if (nm == "Conv2d_Scaling_Min") {
        y = amax(g, y, 1, true, false);
      }
      g.mark_output(y);
    }));
  }
  v.push_back(cw("Conv2d_InstanceNorm_Divide", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T w = g.param(conv_w(p, 2));
    T c = conv_s1(g, x, w, 2);
    T d = instancenorm(g, c, T{}, T{}, 1e-5);
    g.mark_output(binary_lit(g, d, "/", "2.0"));
  }));
  v.push_back(cw("Conv2d_BatchNorm_Scaling", 2, conv_params(2, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 2));
    T w = g.param(conv_w(p, 2)), bw = g.param({P(p, "out_ch")}), bb = g.param({P(p, "out_ch")});
    T c = conv_s1(g, x, w, 2);
    T d = batchnorm(g, c, bw, bb, 1e-5);
    g.mark_output(binary_lit(g, d, "*", "2.0"));
  }));
  v.push_back(cw("Conv2d_Add_Scale_Sigmoid_GroupNorm", 2, with_groups(conv_params(2, 128, 32, 32), 8),
                 [](Graph& g, const Params& p) {
                   T x = g.input(img(p, 2));
                   T w = g.param(conv_w(p, 2)), bias = g.param(chan(p, 2)), sc = g.param(chan(p, 2)),
                     gw = g.param({P(p, "out_ch")}), gb = g.param({P(p, "out_ch")});
                   T c = conv_s1(g, x, w, 2);
                   T d = binary(g, c, bias, "+");
                   T e = binary(g, d, sc, "*");
                   T f = unary(g, e, sigmoid_e);
                   g.mark_output(groupnorm(g, f, P(p, "groups"), gw, gb, 1e-5));
                 }, divisible("out_ch", "groups")));
  v.push_back(cw("Conv2d_GroupNorm_Scale_MaxPool_Clamp", 2, with_groups(conv_params(2, 128, 32, 32), 8),
                 [](Graph& g, const Params& p) {
                   T x = g.input(img(p, 2));
                   T w = g.param(conv_w(p, 2)), gw = g.param({P(p, "out_ch")}), gb = g.param({P(p, "out_ch")}),
                     sc = g.param(chan(p, 2));
                   T c = conv_s1(g, x, w, 2);
                   T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
                   T e = binary(g, d, sc, "*");
                   T f = pool2(g, e, 2, true);
                   g.mark_output(unary(g, f, [](const std::string& s) { return hardtanh_e(s, 0.0, 1.0); }));
                 }, divisible("out_ch", "groups")));
  v.push_back(cw("Conv3d_GroupNorm_Min_Clamp", 3, with_groups(conv_params(3, 128, 32, 32), 8), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3)), gw = g.param({P(p, "out_ch")}), gb = g.param({P(p, "out_ch")});
    T c = conv_s1(g, x, w, 3);
    T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
    T e = unary(g, d, [](const std::string& s) { return "min(" + s + ",0.0)"; });
    g.mark_output(unary(g, e, [](const std::string& s) { return hardtanh_e(s, 0.0, 1.0); }));
  }, divisible("out_ch", "groups")));
  v.push_back(cw("Conv3d_Min_Softmax", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = amax(g, c, 2, false, false);
    g.mark_output(softmax(g, d, 1));
  }));
  v.push_back(cw("Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum", 3, conv_params(3, 128, 32, 32), [](Graph& g, const Params& p) {
    T x = g.input(img(p, 3));
    T w = g.param(conv_w(p, 3)), bias = g.param(chan(p, 3));
    T c = conv_s1(g, x, w, 3);
    T d = binary_lit(g, c, "/", "2.0");
    T e = pool2(g, d, 3, true);
    T f = mean(g, e, {2, 3, 4}, true);
    T h = binary(g, f, bias, "+");
    g.mark_output(sum(g, h, {1}, false));
  }));
  v.push_back(cw("Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max", 3, conv_params(3, 128, 32, 32),
                 [](Graph& g, const Params& p) {
                   T x = g.input(img(p, 3));
                   T w = g.param(conv_w(p, 3)), m = g.param(chan(p, 3));
                   T c = conv_s1(g, x, w, 3);
                   T d = binary(g, c, m, "*");
                   T e = instancenorm(g, d, T{}, T{}, 1e-5);
                   T f = unary(g, e, [](const std::string& s) { return hardtanh_e(s, -1.0, 1.0); });
                   T h = binary(g, f, m, "*");
                   g.mark_output(amax(g, h, 1, false, true));
                 }));
  v.push_back(cw("Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp", 2, with_groups(conv_params(2, 128, 32, 32), 8),
                 [](Graph& g, const Params& p) {
                   T x = g.input(img(p, 2));
                   T w = g.param(conv_w(p, 2)), gw = g.param({P(p, "out_ch")}), gb = g.param({P(p, "out_ch")});
                   T c = conv_s1(g, x, w, 2);
                   T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
                   T e = tanh_(g, d);
                   T f = unary(g, e, hardswish_e);
                   T h = binary(g, c, f, "+");
                   g.mark_output(logsumexp(g, h, 1, true));
                 }, divisible("out_ch", "groups")));
}

}  // namespace steptp::frontend::wl::fused
