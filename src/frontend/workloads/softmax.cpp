// Softmax family: softmax / log-softmax over [batch, dim] and custom variants.
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

void add_softmax(std::vector<Workload>& v) {
  v.push_back(make("softmax", "level1", "softmax", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(softmax(g, x, 1));
  }));
  v.push_back(make("LogSoftmax", "level1", "softmax", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(log_softmax(g, x, 1));
  }));
  std::vector<ParamSpec> bsd{{"batch", 16, 1, 64, 2}, {"seq", 128, 1, 512, 8}, {"dim", 256, 1, 1024, 8}};
  v.push_back(make("Softmax_3D_last", "custom", "softmax", bsd, dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "seq"), P(p, "dim")});
    g.mark_output(softmax(g, x, 2));
  }));
  v.push_back(make("Softmax_3D_middle", "custom", "softmax", bsd, dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "seq"), P(p, "dim")});
    g.mark_output(softmax(g, x, 1));
  }));
  v.push_back(make("Softmax_dim0", "custom", "softmax", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    g.mark_output(softmax(g, x, 0));
  }));
  v.push_back(make("LogSoftmax_3D", "custom", "softmax", bsd, dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "seq"), P(p, "dim")});
    g.mark_output(log_softmax(g, x, 2));
  }));
  v.push_back(make("Softmax_temperature", "custom", "softmax", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    T s = binary_lit(g, x, "/", "0.7");
    g.mark_output(softmax(g, s, 1));
  }));
  v.push_back(make("Softmax_masked", "custom", "softmax", batch_dim_params(), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "dim")});
    T m = g.input({P(p, "batch"), P(p, "dim")}, ir::DType::Bool);
    T w = map(g, {m, x}, [](const auto& r) { return "if_then_else(" + r[0] + ",-1000.0," + r[1] + ")"; });
    g.mark_output(softmax(g, w, 1));
  }));
}

}  // namespace steptp::frontend::wl
