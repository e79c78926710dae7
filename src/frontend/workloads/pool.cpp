// Pooling family: KernelBench level-1 max/avg pooling 1-D/2-D/3-D on [batch, channels, spatial…].
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
const char* kIn[] = {"in_d", "in_h", "in_w"};
Workload pool_wl(const std::string& name, bool is_max, std::int64_t b, std::int64_t c, std::vector<std::int64_t> in,
                 std::int64_t k, std::int64_t s, std::int64_t pad, std::int64_t dil) {
  std::size_t nd = in.size();
  std::vector<ParamSpec> ps{{"batch", b, 1, 64, 2}, {"channels", c, 1, 128, 4}};
  for (std::size_t i = 0; i < nd; ++i)
    ps.push_back({kIn[3 - nd + i], in[i], 1, 1024, nd == 3 ? 12 : nd == 2 ? 16 : 32});
  ps.push_back({"kernel", k, 1, 8, k});
  ps.push_back({"stride", s, 1, 4, s});
  ps.push_back({"padding", pad, 0, 4, pad});
  if (is_max) ps.push_back({"dilation", dil, 1, 4, dil});
  return make(
      name, "level1", "pool", ps, dt_float(),
      [nd, is_max](Graph& g, const Params& p) {
        Shape xs{P(p, "batch"), P(p, "channels")};
        for (std::size_t i = 0; i < nd; ++i) xs.push_back(p.at(kIn[3 - nd + i]));
        std::vector<std::int64_t> k(nd, P(p, "kernel")), s(nd, P(p, "stride")), pd(nd, P(p, "padding")),
            d(nd, is_max ? P(p, "dilation") : 1);
        T x = g.input(xs);
        g.mark_output(is_max ? maxpool(g, x, PoolCfg{k, s, pd, d}) : avgpool(g, x, PoolCfg{k, s, pd, d}));
      },
      [](const Params& p) {
        // PyTorch requires padding <= kernel/2.
        return 2 * P(p, "padding") <= P(p, "kernel") ? std::string() : std::string("padding > kernel/2");
      });
}
}  // namespace

void add_pool(std::vector<Workload>& v) {
  v.push_back(pool_wl("Max_Pooling_1D", true, 16, 64, {128}, 4, 2, 2, 3));
  v.push_back(pool_wl("Max_Pooling_2D", true, 16, 32, {128, 128}, 2, 2, 1, 3));
  v.push_back(pool_wl("Max_Pooling_3D", true, 16, 32, {64, 64, 64}, 3, 2, 1, 3));
  v.push_back(pool_wl("Average_Pooling_1D", false, 16, 32, {128}, 4, 2, 1, 1));
  v.push_back(pool_wl("Average_Pooling_2D", false, 16, 64, {256, 256}, 3, 3, 0, 1));
  v.push_back(pool_wl("Average_Pooling_3D", false, 16, 32, {64, 64, 64}, 3, 2, 1, 1));
  v.push_back(pool_wl("Max_Pooling_2D_plain", true, 16, 32, {128, 128}, 2, 2, 0, 1));
  v.push_back(pool_wl("Average_Pooling_2D_overlapping", false, 16, 32, {128, 128}, 3, 1, 0, 1));
  for (auto& w : {&v[v.size() - 2], &v[v.size() - 1]}) w->suite = "custom";
  v.push_back(make("Global_Average_Pooling_2D", "custom", "pool",
                   {{"batch", 16, 1, 64, 2}, {"channels", 64, 1, 256, 4}, {"in_h", 64, 1, 512, 8},
                    {"in_w", 64, 1, 512, 8}},
                   dt_float(), [](Graph& g, const Params& p) {
                     T x = g.input({P(p, "batch"), P(p, "channels"), P(p, "in_h"), P(p, "in_w")});
                     g.mark_output(mean(g, x, {2, 3}, true));
                   }));
}

}  // namespace steptp::frontend::wl
