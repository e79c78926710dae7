// Reduction family: KernelBench level-1 reductions over dimension 1 of [batch, dim1, dim2], plus custom ones.
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
std::vector<ParamSpec> bdd() {
  return {{"batch", 16, 1, 128, 2}, {"dim1", 256, 1, 1024, 16}, {"dim2", 256, 1, 1024, 16}};
}
using RFn = std::function<T(Graph&, T)>;
Workload red(const std::string& name, const std::string& suite, RFn f, std::vector<ir::DType> dts = dt_float()) {
  return make(name, suite, "reduction", bdd(), std::move(dts), [f](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim1"), P(p, "dim2")});
    g.mark_output(f(g, x));
  });
}
}  // namespace

void add_reduction(std::vector<Workload>& v) {
  v.push_back(red("Sum_reduction_over_a_dimension", "level1", [](Graph& g, T x) { return sum(g, x, {1}, true); }));
  v.push_back(red("Mean_reduction_over_a_dimension", "level1", [](Graph& g, T x) { return mean(g, x, {1}, false); }));
  v.push_back(red("Max_reduction_over_a_dimension", "level1", [](Graph& g, T x) { return amax(g, x, 1, false, true); }));
  v.push_back(red("Min_reduction_over_a_dimension", "level1", [](Graph& g, T x) { return amax(g, x, 1, false, false); }));
  v.push_back(red("Product_reduction_over_a_dimension", "level1", [](Graph& g, T x) { return prod(g, x, 1); },
                  dt_wide()));
  v.push_back(red("Argmax_over_a_dimension", "level1", [](Graph& g, T x) { return argext(g, x, 1, true); }));
  v.push_back(red("Argmin_over_a_dimension", "level1", [](Graph& g, T x) { return argext(g, x, 1, false); }));
  // ---- custom
  v.push_back(red("Sum_reduction_last_dim", "custom", [](Graph& g, T x) { return sum(g, x, {2}, false); }));
  v.push_back(red("Sum_reduction_first_dim", "custom", [](Graph& g, T x) { return sum(g, x, {0}, false); }));
  v.push_back(red("Sum_reduction_all", "custom", [](Graph& g, T x) { return sum(g, x, {0, 1, 2}, false); }));
  v.push_back(red("Mean_reduction_keepdim", "custom", [](Graph& g, T x) { return mean(g, x, {2}, true); }));
  v.push_back(red("Mean_reduction_all", "custom", [](Graph& g, T x) { return mean(g, x, {0, 1, 2}, false); }));
  v.push_back(red("Max_reduction_last_dim", "custom", [](Graph& g, T x) { return amax(g, x, 2, false, true); }));
  v.push_back(red("Min_reduction_keepdim", "custom", [](Graph& g, T x) { return amax(g, x, 1, true, false); }));
  v.push_back(red("Argmax_last_dim", "custom", [](Graph& g, T x) { return argext(g, x, 2, true); }));
  v.push_back(red("Argmin_last_dim", "custom", [](Graph& g, T x) { return argext(g, x, 2, false); }));
  v.push_back(red("LogSumExp_reduction", "custom", [](Graph& g, T x) { return logsumexp(g, x, 1, true); }));
  v.push_back(red("Sum_of_squares", "custom", [](Graph& g, T x) {
    T s = unary(g, x, [](const std::string& a) { return a + "*" + a; });
    return sum(g, s, {1}, false);
  }));
  v.push_back(red("Mean_abs", "custom", [](Graph& g, T x) {
    T s = unary(g, x, [](const std::string& a) { return "abs(" + a + ")"; });
    return mean(g, s, {2}, false);
  }));
  v.push_back(red("Variance_reduction", "custom", [](Graph& g, T x) {
    T m = mean(g, x, {1}, true);
    T d = map(g, {x, m}, [](const auto& r) { return "(" + r[0] + "-" + r[1] + ")**2"; });
    return mean(g, d, {1}, false);
  }));
}

}  // namespace steptp::frontend::wl
