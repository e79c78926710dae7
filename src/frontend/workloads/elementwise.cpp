// Elementwise family: KernelBench level-1 activations (input [batch, dim]) and custom unary/binary ops.
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
using UFn = std::function<std::string(const std::string&)>;

Workload act(const std::string& name, const std::string& suite, UFn f) {
  return make(name, suite, "elementwise", batch_dim_params(), dt_float(), [f](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(unary(g, x, f));
  });
}
}  // namespace

void add_elementwise(std::vector<Workload>& v) {
  v.push_back(act("ReLU", "level1", relu_e));
  v.push_back(act("LeakyReLU", "level1", [](const std::string& x) { return leaky_e(x, 0.01); }));
  v.push_back(act("Sigmoid", "level1", sigmoid_e));
  v.push_back(make("Tanh", "level1", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(tanh(g, x));
  }));
  v.push_back(make("Swish", "level1", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    T s = unary(g, x, sigmoid_e);
    g.mark_output(binary(g, x, s, "*"));
  }));
  v.push_back(act("GELU", "level1", gelu_e));
  v.push_back(act("SELU", "level1", selu_e));
  v.push_back(act("HardSigmoid", "level1", hardsigmoid_e));
  v.push_back(act("Softplus", "level1", softplus_e));
  v.push_back(act("Softsign", "level1", softsign_e));
  v.push_back(act("ELU", "level1", [](const std::string& x) { return elu_e(x, 1.0); }));
  v.push_back(act("HardTanh", "level1", [](const std::string& x) { return hardtanh_e(x, -1.0, 1.0); }));
  v.push_back(make("MinGPTNewGelu", "level1", "elementwise", {{"batch", 2000, 1, 4096, 8}, {"dim", 2000, 1, 4096, 8}},
                   dt_float(), [](Graph& g, const Params& p) {
                     // 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x**3)))
                     T x = g.input({P(p, "batch"), P(p, "dim")});
                     T inner = unary(g, x, [](const std::string& a) {
                       return "0.7978845608028654*(" + a + "+0.044715*" + a + "**3)";
                     });
                     T th = tanh(g, inner);
                     g.mark_output(map(g, {x, th}, [](const auto& r) { return "0.5*" + r[0] + "*(1+" + r[1] + ")"; }));
                   }));
  // ---- custom activations and unary math
  v.push_back(make("Mish", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(mish(g, x));
  }));
  v.push_back(act("HardSwish", "custom", hardswish_e));
  v.push_back(act("ReLU6", "custom", [](const std::string& x) { return "min(max(" + x + ",0),6)"; }));
  v.push_back(act("LeakyReLU_0p2", "custom", [](const std::string& x) { return leaky_e(x, 0.2); }));
  v.push_back(act("ELU_alpha0p5", "custom", [](const std::string& x) { return elu_e(x, 0.5); }));
  v.push_back(act("CELU", "custom", [](const std::string& x) {
    return "max(0," + x + ")+min(0,exp(" + x + ")-1)";
  }));
  v.push_back(act("SiLU_fused", "custom", [](const std::string& x) { return x + "/(1+exp(-" + x + "))"; }));
  v.push_back(act("GELU_tanh", "custom", [](const std::string& x) {
    return "0.5*" + x + "*(1+(exp(2*(0.7978845608028654*(" + x + "+0.044715*" + x + "**3)))-1)/(exp(2*(0.7978845608028654*(" +
           x + "+0.044715*" + x + "**3)))+1))";
  }));
  v.push_back(act("Tanhshrink", "custom", [](const std::string& x) {
    return x + "-(exp(" + x + ")-exp(-" + x + "))/(exp(" + x + ")+exp(-" + x + "))";
  }));
  v.push_back(act("Softshrink", "custom", [](const std::string& x) {
    return "if_then_else(" + x + ">0.5," + x + "-0.5,if_then_else(" + x + "<-0.5," + x + "+0.5,0))";
  }));
  v.push_back(act("Hardshrink", "custom", [](const std::string& x) {
    return "if_then_else(abs(" + x + ")>0.5," + x + ",0)";
  }));
  v.push_back(act("LogSigmoid", "custom", [](const std::string& x) { return "-log(1+exp(-" + x + "))"; }));
  v.push_back(act("Threshold", "custom", [](const std::string& x) { return "if_then_else(" + x + ">0.1," + x + ",20)"; }));
  v.push_back(act("Square", "custom", [](const std::string& x) { return x + "*" + x; }));
  v.push_back(act("Reciprocal_abs", "custom", [](const std::string& x) { return "1/(1+abs(" + x + "))"; }));
  v.push_back(act("Exp", "custom", [](const std::string& x) { return "exp(" + x + ")"; }));
  v.push_back(act("Log_abs", "custom", [](const std::string& x) { return "log(abs(" + x + ")+1)"; }));
  v.push_back(act("Sqrt_abs", "custom", [](const std::string& x) { return "sqrt(abs(" + x + "))"; }));
  v.push_back(act("Erf", "custom", [](const std::string& x) { return "erf(" + x + ")"; }));
  v.push_back(act("Clamp", "custom", [](const std::string& x) { return hardtanh_e(x, -0.5, 0.5); }));
  for (const char* op : {"+", "-", "*", "/"}) {
    std::string o = op;
    std::string nm = o == "+" ? "Add" : o == "-" ? "Sub" : o == "*" ? "Mul" : "Div";
    v.push_back(make("Elementwise_" + nm, "custom", "elementwise", batch_dim_params(), dt_float(), [o](Graph& g, const Params& p) {
      T a = g.input({P(p, "batch"), P(p, "dim")});
      T c = g.input({P(p, "batch"), P(p, "dim")});
      g.mark_output(binary(g, a, c, o));
    }));
    v.push_back(make("Broadcast_" + nm + "_row", "custom", "elementwise", batch_dim_params(), dt_float(), [o](Graph& g, const Params& p) {
      T a = g.input({P(p, "batch"), P(p, "dim")});
      T c = g.input({P(p, "dim")});
      g.mark_output(binary(g, a, c, o));
    }));
  }
  v.push_back(make("Where_mask", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T a = g.input({P(p, "batch"), P(p, "dim")});
    T m = g.input({P(p, "batch"), P(p, "dim")}, ir::DType::Bool);
    g.mark_output(map(g, {m, a}, [](const auto& r) { return "if_then_else(" + r[0] + ",0," + r[1] + ")"; }));
  }));
  v.push_back(make("Maximum", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T a = g.input({P(p, "batch"), P(p, "dim")});
    T c = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(map(g, {a, c}, [](const auto& r) { return "max(" + r[0] + "," + r[1] + ")"; }));
  }));
  v.push_back(make("Transpose_2D", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T a = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(transpose(g, a, 0, 1));
  }));
  v.push_back(make("Flip_last", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T a = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(flip(g, a, 1));
  }));
  v.push_back(make("Concat_last", "custom", "elementwise", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T a = g.input({P(p, "batch"), P(p, "dim")});
    T c = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(cat(g, {a, c}, 1));
  }));
}

}  // namespace steptp::frontend::wl
