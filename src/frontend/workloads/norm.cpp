// Normalisation family: KernelBench level-1 norms on [batch, features, dim1, dim2] (or [batch, dim]).
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
std::vector<ParamSpec> bfdd() {
  return {{"batch", 16, 1, 64, 2}, {"features", 64, 1, 256, 8}, {"dim1", 256, 1, 512, 8}, {"dim2", 128, 1, 512, 8}};
}
Shape in4(const Params& p) { return {P(p, "batch"), P(p, "features"), P(p, "dim1"), P(p, "dim2")}; }
}  // namespace

void add_norm(std::vector<Workload>& v) {
  v.push_back(make("BatchNorm", "level1", "norm", bfdd(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input(in4(p));
    T w = g.param({P(p, "features")}), b = g.param({P(p, "features")});
    g.mark_output(batchnorm(g, x, w, b, 1e-5));
  }));
  v.push_back(make("InstanceNorm", "level1", "norm", bfdd(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input(in4(p));
    g.mark_output(instancenorm(g, x, T{}, T{}, 1e-5));
  }));
  auto gn_params = bfdd();
  gn_params.push_back({"groups", 8, 1, 64, 2});
  v.push_back(make(
      "GroupNorm", "level1", "norm", gn_params, dt_float(),
      [](Graph& g, const Params& p) {
        T x = g.input(in4(p));
        T w = g.param({P(p, "features")}), b = g.param({P(p, "features")});
        g.mark_output(groupnorm(g, x, P(p, "groups"), w, b, 1e-5));
      },
      [](const Params& p) {
        return P(p, "features") % P(p, "groups") == 0 ? std::string() : std::string("features % groups != 0");
      }));
  v.push_back(make("RMSNorm", "level1", "norm", bfdd(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input(in4(p));
    g.mark_output(rmsnorm(g, x, 1e-5));
  }));
  v.push_back(make("FrobeniusNorm", "level1", "norm", bfdd(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input(in4(p));
    g.mark_output(frobenius_norm(g, x));
  }));
  v.push_back(make("L1Norm", "level1", "norm", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    T a = unary(g, x, [](const std::string& s) { return "abs(" + s + ")"; });
    T s = sum(g, a, {1}, true);
    g.mark_output(binary(g, x, s, "/"));
  }));
  v.push_back(make("L2Norm", "level1", "norm", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(lp_normalize(g, x, 2));
  }));
  v.push_back(make("LayerNorm", "level1", "norm", bfdd(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input(in4(p));
    Shape ns{P(p, "features"), P(p, "dim1"), P(p, "dim2")};
    T w = g.param(ns), b = g.param(ns);
    g.mark_output(layernorm(g, x, 3, w, b, 1e-5));
  }));
  // ---- custom
  v.push_back(make("LayerNorm_last_dim", "custom", "norm", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    T w = g.param({P(p, "dim")}), b = g.param({P(p, "dim")});
    g.mark_output(layernorm(g, x, 1, w, b, 1e-5));
  }));
  v.push_back(make("InstanceNorm_affine", "custom", "norm", bfdd(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input(in4(p));
    T w = g.param({P(p, "features")}), b = g.param({P(p, "features")});
    g.mark_output(instancenorm(g, x, w, b, 1e-5));
  }));
  v.push_back(make("BatchNorm1d", "custom", "norm", {{"batch", 128, 2, 1024, 8}, {"features", 512, 1, 4096, 16}},
                   dt_float(), [](Graph& g, const Params& p) {
                     T x = g.input({P(p, "batch"), P(p, "features")});
                     T w = g.param({P(p, "features")}), b = g.param({P(p, "features")});
                     g.mark_output(batchnorm(g, x, w, b, 1e-5));
                   }));
  v.push_back(make("L1Norm_normalize", "custom", "norm", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(lp_normalize(g, x, 1));
  }));
  v.push_back(make("RMSNorm_2D", "custom", "norm", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(rmsnorm(g, x, 1e-6));
  }));
}

}  // namespace steptp::frontend::wl
