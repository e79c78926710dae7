// Scan family: KernelBench level-1 cumulative ops along dimension 1 of [batch, n].
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
std::vector<ParamSpec> bn(std::int64_t n) { return {{"batch", 128, 1, 512, 4}, {"n", n, 2, 8192, 16}}; }
}  // namespace

void add_scan(std::vector<Workload>& v) {
  v.push_back(make("cumsum", "level1", "scan", bn(4000), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "n")});
    g.mark_output(cumsum(g, x, 1, false));
  }));
  v.push_back(make("cumprod", "level1", "scan", bn(4000), dt_wide(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "n")});
    g.mark_output(cumprod(g, x, 1));
  }));
  v.push_back(make("cumsum_reverse", "level1", "scan", bn(4000), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "n")});
    g.mark_output(cumsum(g, x, 1, true));
  }));
  v.push_back(make(
      "cumsum_exclusive", "level1", "scan", {{"batch", 128, 2, 512, 4}, {"n", 1000, 2, 8192, 16}}, dt_float(),
      [](Graph& g, const Params& p) {
        // KernelBench: cumsum(cat(zeros_like(x.select(1,0).unsqueeze(1)), x, dim=1)[:-1], dim=1)
        std::int64_t b = P(p, "batch");
        T x = g.input({b, P(p, "n")});
        T s = select(g, x, 1, 0);
        T u = unsqueeze(g, s, 1);
        T z = zeros(g, g.shape(u));
        T c = cat(g, {z, x}, 1);
        T sl = slice(g, c, 0, 0, b - 1);
        g.mark_output(cumsum(g, sl, 1, false));
      }));
  v.push_back(make("masked_cumsum", "level1", "scan", bn(4000), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "n")});
    T m = g.input({P(p, "batch"), P(p, "n")}, ir::DType::Bool);
    g.mark_output(masked_cumsum(g, x, m, 1));
  }));
  v.push_back(make("cumsum_dim0", "custom", "scan", bn(1000), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "n")});
    g.mark_output(cumsum(g, x, 0, false));
  }));
  v.push_back(make("cumsum_prefix_mean", "custom", "scan", bn(1000), dt_float(), [](Graph& g, const Params& p) {
    T x = g.input({P(p, "batch"), P(p, "n")});
    T c = cumsum(g, x, 1, false);
    g.mark_output(map(g, {c}, [](const auto& r) { return r[0] + "/(a+1)"; }));
  }));
}

}  // namespace steptp::frontend::wl
