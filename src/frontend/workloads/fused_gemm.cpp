// Level-2 Gemm/Matmul fused chains. Constants (captured module attributes) and params are created in the order of
// the reference's known lists, because names are handed out per kind in creation order.
#include "frontend/workloads/fused_common.hpp"

namespace steptp::frontend::wl::fused {

namespace {
using U = std::function<std::string(const std::string&)>;
U hardtanh_u(double lo, double hi) { return [lo, hi](const std::string& x) { return hardtanh_e(x, lo, hi); }; }
U leaky_u(double s) { return [s](const std::string& x) { return leaky_e(x, s); }; }
Shape xin(const Params& p) { return {P(p, "batch"), P(p, "in")}; }
Shape wsh(const Params& p) { return {P(p, "out"), P(p, "in")}; }
Shape osh(const Params& p) { return {P(p, "out")}; }
Workload gemm(const std::string& name, std::vector<ParamSpec> ps, BuildFn f, CheckFn c = {}) {
  return make(name, "level2", "fused", std::move(ps), dt_float(), std::move(f), std::move(c));
}
}  // namespace

void add_gemm_chains(std::vector<Workload>& v) {
  v.push_back(gemm("Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish", gemm_params(128, 512, 1024),
                   [](Graph& g, const Params& p) {
                     T x = g.input(xin(p));
                     T s = g.constant({});
                     T w = g.param(wsh(p)), b = g.param(osh(p));
                     T c = linear(g, x, w, b);
                     T d = binary(g, c, s, "*");
                     T e = binary(g, d, d, "+");
                     T f = unary(g, e, hardtanh_u(-10.0, 10.0));
                     T l = logsumexp(g, f, 1, true);
                     T m = mish(g, l);
                     g.mark_output(binary(g, l, m, "*"));
                   }));
  v.push_back(gemm("BMM_InstanceNorm_Sum_ResidualAdd_Multiply", gemm_params(128, 64, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p)), y = g.input({P(p, "batch"), P(p, "out"), 2});
    T w = g.param(wsh(p)), b = g.param(osh(p)), nw = g.param(osh(p)), nb = g.param(osh(p));
    T d = linear(g, x, w, b);
    T e = unsqueeze(g, d, -1);
    T f = unsqueeze(g, e, -1);
    T c = cat(g, {f, f}, -1);
    T h = instancenorm(g, c, nw, nb, 1e-5);
    T i = squeeze(g, h, -2);
    T j = binary(g, i, y, "+");
    g.mark_output(binary(g, j, y, "*"));
  }));
  v.push_back(gemm("Matmul_Mish_Mish", gemm_params(128, 10, 20), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = mish(g, c);
    g.mark_output(mish(g, d));
  }));
  auto gn_ps = [](std::int64_t groups) {
    auto ps = gemm_params(128, 512, 1024);
    ps.push_back({"groups", groups, 1, 64, 2});
    return ps;
  };
  v.push_back(gemm("Matmul_Swish_Sum_GroupNorm", gn_ps(32), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    g.constant(osh(p));
    T bias = g.param(osh(p)), w = g.param(wsh(p)), b = g.param(osh(p)), gw = g.param(osh(p)), gb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, sigmoid_e);
    T e = binary(g, d, c, "*");
    T f = binary(g, e, bias, "+");
    g.mark_output(groupnorm(g, f, P(p, "groups"), gw, gb, 1e-5));
  }, divisible("out", "groups")));
  v.push_back(gemm("Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU", gn_ps(8), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p)), bw = g.param(osh(p)), bb = g.param(osh(p)), gw = g.param(osh(p)),
      gb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T f = batchnorm(g, c, bw, bb, 1e-5);
    T ge = unary(g, f, gelu_e);
    T h = groupnorm(g, ge, P(p, "groups"), gw, gb, 1e-5);
    T m = mean(g, h, {1}, true);
    g.mark_output(unary(g, m, relu_e));
  }, divisible("out", "groups")));
  v.push_back(gemm("Gemm_Sigmoid_Sum_LogSumExp", gemm_params(128, 10, 20), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, sigmoid_e);
    T e = sum(g, d, {1}, false);
    g.mark_output(logsumexp(g, e, 0, false));
  }));
  v.push_back(gemm("Gemm_Scaling_Hardtanh_GELU", gemm_params(128, 1024, 512), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T s = g.constant({});
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = binary(g, c, s, "*");
    T e = unary(g, d, hardtanh_u(-2.0, 2.0));
    g.mark_output(unary(g, e, gelu_e));
  }));
  v.push_back(gemm("Matmul_MaxPool_Sum_Scale", gemm_params(128, 10, 5), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T s = g.constant({});
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unsqueeze(g, c, 1);
    T e = pool2(g, d, 1, true);
    T f = squeeze(g, e, 1);
    T gs = sum(g, f, {1}, false);
    g.mark_output(binary(g, gs, s, "*"));
  }));
  v.push_back(gemm("Matmul_Swish_Scaling", gemm_params(128, 1024, 512), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T s = g.constant({});
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, sigmoid_e);
    T e = binary(g, c, d, "*");
    g.mark_output(binary(g, e, s, "*"));
  }));
  v.push_back(gemm("Gemm_ReLU_Divide", gemm_params(128, 1024, 512), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T s = g.constant({});
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, relu_e);
    g.mark_output(binary(g, d, s, "/"));
  }));
  v.push_back(gemm("Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU", gemm_params(128, 1024, 512),
                   [](Graph& g, const Params& p) {
                     T x = g.input(xin(p));
                     T w = g.param(wsh(p)), b = g.param(osh(p));
                     T c = linear(g, x, w, b);
                     T d = logsumexp(g, c, 1, true);
                     T e = unary(g, d, leaky_u(0.01));
                     T f = unary(g, e, leaky_u(0.01));
                     T h = unary(g, f, gelu_e);
                     g.mark_output(unary(g, h, gelu_e));
                   }));
  v.push_back(gemm("Gemm_BatchNorm_Scaling_Softmax", gemm_params(128, 1024, 512), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    g.constant({1});
    T s = g.param({1}), w = g.param(wsh(p)), b = g.param(osh(p)), bw = g.param(osh(p)), bb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T f = batchnorm(g, c, bw, bb, 1e-5);
    T gg = map(g, {s, f}, [](const auto& r) { return r[0] + "*" + r[1]; });
    g.mark_output(softmax(g, gg, 1));
  }));
  v.push_back(gemm("Gemm_BiasAdd_Hardtanh_Mish_GroupNorm", gn_ps(32), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    g.constant(osh(p));
    T bias = g.param(osh(p)), w = g.param(wsh(p)), b = g.param(osh(p)), gw = g.param(osh(p)), gb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = binary(g, c, bias, "+");
    T e = unary(g, d, hardtanh_u(-1.0, 1.0));
    T f = mish(g, e);
    g.mark_output(groupnorm(g, f, P(p, "groups"), gw, gb, 1e-5));
  }, divisible("out", "groups")));
  v.push_back(gemm("Matmul_BatchNorm_BiasAdd_Divide_Swish", gemm_params(128, 1024, 512), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    g.constant({1});
    T dv = g.constant({});
    T bias = g.param({1}), w = g.param(wsh(p)), b = g.param(osh(p)), bw = g.param(osh(p)), bb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T f = batchnorm(g, c, bw, bb, 1e-5);
    T gg = binary(g, f, bias, "+");
    T h = binary(g, gg, dv, "/");
    T i = unary(g, h, sigmoid_e);
    g.mark_output(binary(g, h, i, "*"));
  }));

  // ---- further level-2 Gemm chains (not in the reference corpus)
  struct Simple {
    const char* name;
    std::vector<U> acts;  // applied in order after the Gemm
  };
  for (const Simple& s :
       {Simple{"Gemm_Add_ReLU", {relu_e}},
        Simple{"Gemm_Multiply_LeakyReLU", {[](const std::string& x) { return "2.0*" + x; }, leaky_u(0.1)}},
        Simple{"Matmul_Divide_GELU", {[](const std::string& x) { return x + "/10.0"; }, gelu_e}},
        Simple{"Gemm_Swish_Divide_Clamp_Tanh_Clamp",
               {[](const std::string& x) { return x + "*(1/(1+exp(-" + x + ")))"; },
                [](const std::string& x) { return x + "/2.0"; }, hardtanh_u(-1.0, 1.0)}},
        Simple{"Matmul_Subtract_Multiply_ReLU",
               {[](const std::string& x) { return x + "-2.0"; }, [](const std::string& x) { return x + "*1.5"; },
                relu_e}},
        Simple{"Gemm_Sigmoid_Scaling_ResidualAdd", {[](const std::string& x) { return x + "+2.0*(1/(1+exp(-" + x + ")))"; }}},
        Simple{"Matmul_Scaling_ResidualAdd", {[](const std::string& x) { return x + "*0.5+" + x; }}},
        Simple{"Matmul_Add_Swish_Tanh_GELU_Hardtanh",
               {[](const std::string& x) { return x + "*(1/(1+exp(-" + x + ")))"; }, gelu_e, hardtanh_u(-1.0, 1.0)}},
        Simple{"Gemm_ReLU_HardSwish", {relu_e, hardswish_e}},
        Simple{"Gemm_Softplus_Sigmoid", {softplus_e, sigmoid_e}},
        Simple{"Gemm_ELU_Scaling", {[](const std::string& x) { return elu_e(x, 1.0); },
                                    [](const std::string& x) { return x + "*0.5"; }}}}) {
    std::vector<U> acts = s.acts;
    v.push_back(gemm(s.name, gemm_params(128, 1024, 512), [acts](Graph& g, const Params& p) {
      T x = g.input(xin(p));
      T w = g.param(wsh(p)), b = g.param(osh(p));
      T y = linear(g, x, w, b);
      for (const auto& f : acts) y = unary(g, y, f);
      g.mark_output(y);
    }));
  }
  v.push_back(gemm("Matmul_Sigmoid_Sum", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, sigmoid_e);
    g.mark_output(sum(g, d, {1}, true));
  }));
  v.push_back(gemm("Gemm_Divide_Sum_Scaling", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p));
    T c = matmul(g, x, transpose(g, w, 0, 1));
    T d = binary_lit(g, c, "/", "2");
    T e = sum(g, d, {1}, true);
    g.mark_output(binary_lit(g, e, "*", "1.5"));
  }));
  v.push_back(gemm("Gemm_Max_Subtract_GELU", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T m = amax(g, c, 1, true, true);
    T mm = mean(g, m, {1}, true);
    T d = binary(g, m, mm, "-");
    g.mark_output(unary(g, d, gelu_e));
  }));
  v.push_back(gemm("Matmul_Min_Subtract", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, [](const std::string& a) { return "min(" + a + ",0.5)"; });
    g.mark_output(binary_lit(g, d, "-", "0.5"));
  }));
  v.push_back(gemm("Matmul_GELU_Softmax", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unary(g, c, gelu_e);
    g.mark_output(softmax(g, d, 1));
  }));
  v.push_back(gemm("Matmul_Mean_Softmax", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), 16, P(p, "in")});
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = mean(g, c, {1}, false);
    g.mark_output(softmax(g, d, 1));
  }));
  v.push_back(gemm("Gemm_Scale_BatchNorm", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p)), s = g.param(osh(p)), bw = g.param(osh(p)), bb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = binary(g, c, s, "*");
    g.mark_output(batchnorm(g, d, bw, bb, 1e-5));
  }));
  auto gn_small = gn_ps(8);
  v.push_back(gemm("Gemm_GroupNorm_Hardtanh", gn_small, [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p)), gw = g.param(osh(p)), gb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
    g.mark_output(unary(g, d, hardtanh_u(-2.0, 2.0)));
  }, divisible("out", "groups")));
  v.push_back(gemm("Gemm_GroupNorm_Min_BiasAdd", gn_small, [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p)), gw = g.param(osh(p)), gb = g.param(osh(p)), bias = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
    T m = amax(g, d, 1, true, false);
    g.mark_output(binary(g, m, bias, "+"));
  }, divisible("out", "groups")));
  v.push_back(gemm("Gemm_GroupNorm_Swish_Multiply_Swish", gn_small, [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p)), gw = g.param(osh(p)), gb = g.param(osh(p)), mw = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
    T s1 = unary(g, d, [](const std::string& a) { return a + "*(1/(1+exp(-" + a + ")))"; });
    T m = binary(g, s1, mw, "*");
    g.mark_output(unary(g, m, [](const std::string& a) { return a + "*(1/(1+exp(-" + a + ")))"; }));
  }, divisible("out", "groups")));
  v.push_back(gemm("Matmul_GroupNorm_LeakyReLU_Sum", gn_small, [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p)), gw = g.param(osh(p)), gb = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = groupnorm(g, c, P(p, "groups"), gw, gb, 1e-5);
    T e = unary(g, d, leaky_u(0.01));
    g.mark_output(binary(g, e, e, "+"));
  }, divisible("out", "groups")));
  v.push_back(gemm("Gemm_Subtract_GlobalAvgPool_LogSumExp_GELU_ResidualAdd", gemm_params(128, 512, 256),
                   [](Graph& g, const Params& p) {
                     T x = g.input(xin(p));
                     T w = g.param(wsh(p)), b = g.param(osh(p)), sub = g.param(osh(p));
                     T c = linear(g, x, w, b);
                     T d = binary(g, c, sub, "-");
                     T e = mean(g, d, {1}, true);
                     T f = logsumexp(g, e, 1, true);
                     T h = unary(g, f, gelu_e);
                     g.mark_output(binary(g, h, x, "+"));
                   }));
  v.push_back(gemm("Matmul_AvgPool_GELU_Scale_Max", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = unsqueeze(g, c, 1);
    T e = pool2(g, d, 1, false);
    T f = squeeze(g, e, 1);
    T h = unary(g, f, [](const std::string& a) { return gelu_e(a) + "*2.0"; });
    g.mark_output(amax(g, h, 1, false, true));
  }));
  v.push_back(gemm("Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp", gemm_params(128, 512, 256), [](Graph& g, const Params& p) {
    T x = g.input(xin(p));
    T w = g.param(wsh(p)), b = g.param(osh(p));
    T c = linear(g, x, w, b);
    T d = sum(g, c, {1}, true);
    T e = amax(g, d, 1, true, true);
    T f = logsumexp(g, e, 1, true);
    g.mark_output(logsumexp(g, f, 1, true));
  }));
}

}  // namespace steptp::frontend::wl::fused
