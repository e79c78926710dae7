// Internal: parameter sets and small builders shared by the level-2 fused-chain files.
#pragma once
#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl::fused {

/// Gemm chains: x [batch, in] · W [out, in]ᵀ + b.
inline std::vector<ParamSpec> gemm_params(std::int64_t batch, std::int64_t in, std::int64_t out) {
  return {{"batch", batch, 1, 1024, 4}, {"in", in, 1, 4096, 16}, {"out", out, 2, 4096, 16}};
}
/// Conv chains: x [batch, in_ch, (in_d,) in_h, in_w], weight [out_ch, in_ch, k…] (stride 1, no padding).
inline std::vector<ParamSpec> conv_params(int nd, std::int64_t batch, std::int64_t h, std::int64_t w,
                                          std::int64_t d = 16) {
  std::vector<ParamSpec> ps{{"batch", batch, 1, 256, 2}, {"in_ch", 3, 1, 16, 3}, {"out_ch", 16, 1, 64, 4}};
  if (nd == 3) ps.push_back({"in_d", d, 4, 64, 6});
  ps.push_back({"in_h", h, 4, 128, nd == 3 ? 8 : 10});
  ps.push_back({"in_w", w, 4, 128, nd == 3 ? 8 : 10});
  ps.push_back({"k", 3, 1, 5, 3});
  return ps;
}
inline Shape img(const Params& p, int nd) {
  Shape s{P(p, "batch"), P(p, "in_ch")};
  if (nd == 3) s.push_back(P(p, "in_d"));
  s.push_back(P(p, "in_h"));
  s.push_back(P(p, "in_w"));
  return s;
}
inline Shape conv_w(const Params& p, int nd) {
  Shape s{P(p, "out_ch"), P(p, "in_ch")};
  for (int i = 0; i < nd; ++i) s.push_back(P(p, "k"));
  return s;
}
/// Per-channel tensor [out_ch, 1, 1(, 1)].
inline Shape chan(const Params& p, int nd) {
  Shape s{P(p, "out_ch")};
  for (int i = 0; i < nd; ++i) s.push_back(1);
  return s;
}
inline T conv_s1(Graph& g, T x, T w, int nd) {
  std::vector<std::int64_t> one(nd, 1), zero(nd, 0);
  return conv(g, x, w, ConvCfg{one, zero, one, 1}, T{});
}
inline T pool2(Graph& g, T x, int nd, bool is_max) {
  std::vector<std::int64_t> two(nd, 2), zero(nd, 0), one(nd, 1);
  PoolCfg c{two, two, zero, one};
  return is_max ? maxpool(g, x, c) : avgpool(g, x, c);
}
inline CheckFn divisible(const char* a, const char* b) {
  std::string an = a, bn = b;
  return [an, bn](const Params& p) {
    return p.at(an) % p.at(bn) == 0 ? std::string() : an + " not divisible by " + bn;
  };
}
inline T tanh_(Graph& g, T x) { return wl::tanh(g, x); }

void add_gemm_chains(std::vector<Workload>& v);
void add_conv_chains(std::vector<Workload>& v);

}  // namespace steptp::frontend::wl::fused
