// Convolution family: KernelBench level-1 convolutions (standard, strided, dilated, padded, depthwise,
// depthwise-separable, pointwise, transposed) and level-2 conv pairs. Conv weights are params without bias, as in
// the reference corpus.
#include <algorithm>

#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
// Parameter set: batch, in_ch, out_ch, spatial sizes (s0..), kernel sizes (k0..).
struct ConvSpec {
  std::int64_t batch, cin, cout;
  std::vector<std::int64_t> in, k, stride, pad, dil;
  std::int64_t groups = 1;
};
const char* kIn[] = {"in_d", "in_h", "in_w"};
const char* kK[] = {"k_d", "k_h", "k_w"};
std::vector<ParamSpec> conv_params(const ConvSpec& s, bool groups_param) {
  std::vector<ParamSpec> ps{{"batch", s.batch, 1, 64, 2}, {"in_ch", s.cin, 1, 64, s.cin <= 4 ? s.cin : 4},
                            {"out_ch", s.cout, 1, 256, s.groups > 1 ? s.cin <= 4 ? s.cin : 4 : 4}};
  std::size_t nd = s.in.size(), off = 3 - nd;
  for (std::size_t i = 0; i < nd; ++i)
    ps.push_back({kIn[off + i], s.in[i], 1, 1024, std::max<std::int64_t>(nd == 3 ? 6 : nd == 2 ? 10 : 16, s.k[i] + 2)});
  for (std::size_t i = 0; i < nd; ++i) ps.push_back({kK[off + i], s.k[i], 1, 7, s.k[i]});
  if (groups_param) ps.push_back({"groups", s.groups, 1, 64, s.cin <= 4 ? s.cin : 4});
  return ps;
}
Shape x_shape(const Params& p, std::size_t nd) {
  Shape x{P(p, "batch"), P(p, "in_ch")};
  for (std::size_t i = 0; i < nd; ++i) x.push_back(p.at(kIn[3 - nd + i]));
  return x;
}
Shape w_shape(const Params& p, std::size_t nd, std::int64_t cin_per_group, std::int64_t cout) {
  Shape w{cout, cin_per_group};
  for (std::size_t i = 0; i < nd; ++i) w.push_back(p.at(kK[3 - nd + i]));
  return w;
}
CheckFn group_check(bool depthwise) {
  return [depthwise](const Params& p) -> std::string {
    std::int64_t gr = depthwise ? P(p, "in_ch") : (p.count("groups") ? P(p, "groups") : 1);
    if (P(p, "in_ch") % gr || P(p, "out_ch") % gr) return "channels not divisible by groups";
    return "";
  };
}
// Standard (groups param or 1) or depthwise (groups = in_ch) convolution workload.
Workload conv_wl(const std::string& name, const std::string& suite, ConvSpec s, bool depthwise = false) {
  std::size_t nd = s.in.size();
  ConvCfg cfg{s.stride, s.pad, s.dil, 1};
  bool gparam = s.groups > 1 && !depthwise;
  auto ps = conv_params(s, gparam);
  if (depthwise) ps[2].small = ps[1].small;  // out_ch = in_ch (multiplier 1)
  return make(name, suite, "conv", ps, dt_float(),
              [nd, cfg, depthwise, gparam](Graph& g, const Params& p) {
                ConvCfg c = cfg;
                c.groups = depthwise ? P(p, "in_ch") : gparam ? P(p, "groups") : 1;
                T x = g.input(x_shape(p, nd));
                T w = g.param(w_shape(p, nd, P(p, "in_ch") / c.groups, P(p, "out_ch")));
                g.mark_output(conv(g, x, w, c, T{}));
              },
              group_check(depthwise));
}
std::vector<std::int64_t> ones(std::size_t n) { return std::vector<std::int64_t>(n, 1); }
std::vector<std::int64_t> zeros_v(std::size_t n) { return std::vector<std::int64_t>(n, 0); }
ConvSpec plain(std::int64_t b, std::int64_t ci, std::int64_t co, std::vector<std::int64_t> in,
               std::vector<std::int64_t> k) {
  std::size_t n = in.size();
  return ConvSpec{b, ci, co, std::move(in), std::move(k), ones(n), zeros_v(n), ones(n), 1};
}
}  // namespace

void add_conv(std::vector<Workload>& v) {
  v.push_back(conv_wl("conv_standard_2D__asymmetric_input__square_kernel", "level1", plain(16, 3, 64, {128, 256}, {3, 3})));
  v.push_back(conv_wl("conv_standard_2D__square_input__asymmetric_kernel", "level1", plain(16, 3, 64, {256, 256}, {3, 5})));
  v.push_back(conv_wl("conv_standard_2D__square_input__square_kernel", "level1", plain(16, 3, 64, {256, 256}, {3, 3})));
  v.push_back(conv_wl("conv_standard_2D__asymmetric_input__asymmetric_kernel", "level1", plain(16, 3, 64, {256, 128}, {5, 3})));
  v.push_back(conv_wl("conv_standard_1D", "level1", plain(16, 3, 64, {512}, {3})));
  v.push_back(conv_wl("conv_standard_3D__square_input__square_kernel", "level1", plain(16, 3, 64, {64, 64, 64}, {3, 3, 3})));
  v.push_back(conv_wl("conv_standard_3D__asymmetric_input__square_kernel", "level1", plain(16, 3, 64, {64, 64, 128}, {3, 3, 3})));
  v.push_back(conv_wl("conv_standard_3D__square_input__asymmetric_kernel", "level1", plain(16, 3, 64, {64, 64, 64}, {3, 5, 7})));
  v.push_back(conv_wl("conv_standard_3D__asymmetric_input__asymmetric_kernel", "level1", plain(16, 3, 64, {16, 128, 128}, {3, 5, 7})));
  {
    ConvSpec s = plain(16, 3, 64, {256}, {3});
    s.stride = {3};
    s.dil = {4};
    v.push_back(conv_wl("conv_standard_1D_dilated_strided", "level1", s));
  }
  {
    ConvSpec s = plain(16, 3, 64, {256, 256}, {5, 3});
    s.pad = {2, 1};
    s.dil = {1, 2};
    v.push_back(conv_wl("conv_standard_2D_square_input_asymmetric_kernel___dilated____padded", "level1", s));
  }
  v.push_back(conv_wl("conv_depthwise_2D_square_input_square_kernel", "level1", plain(16, 3, 3, {256, 256}, {3, 3}), true));
  v.push_back(conv_wl("conv_depthwise_2D_square_input_asymmetric_kernel", "level1", plain(16, 3, 3, {256, 256}, {3, 1}), true));
  v.push_back(conv_wl("conv_depthwise_2D_asymmetric_input_square_kernel", "level1", plain(16, 3, 3, {128, 256}, {3, 3}), true));
  v.push_back(conv_wl("conv_depthwise_2D_asymmetric_input_asymmetric_kernel", "level1", plain(16, 3, 3, {128, 256}, {3, 5}), true));
  v.push_back(conv_wl("conv_pointwise_2D", "level1", plain(16, 3, 64, {256, 256}, {1, 1})));
  v.push_back(make("conv_depthwise_separable_2D", "level1", "conv",
                   {{"batch", 16, 1, 64, 2}, {"in_ch", 3, 1, 64, 3}, {"out_ch", 64, 1, 256, 4},
                    {"in_h", 256, 3, 1024, 10}, {"in_w", 256, 3, 1024, 10}, {"k", 3, 1, 7, 3}},
                   dt_float(), [](Graph& g, const Params& p) {
                     std::int64_t ci = P(p, "in_ch"), k = P(p, "k");
                     T x = g.input({P(p, "batch"), ci, P(p, "in_h"), P(p, "in_w")});
                     T dw = g.param({ci, 1, k, k});
                     T pw = g.param({P(p, "out_ch"), ci, 1, 1});
                     T d = conv(g, x, dw, ConvCfg{{1, 1}, {0, 0}, {1, 1}, ci}, T{});
                     g.mark_output(conv(g, d, pw, ConvCfg{{1, 1}, {0, 0}, {1, 1}, 1}, T{}));
                   }));
  {
    ConvSpec s = plain(16, 8, 64, {64, 64}, {3, 3});
    s.groups = 4;
    v.push_back(conv_wl("conv_grouped_2D", "custom", s));
    ConvSpec t = plain(16, 3, 64, {128, 128}, {3, 3});
    t.stride = {2, 2};
    t.pad = {1, 1};
    v.push_back(conv_wl("conv_standard_2D_strided_padded", "custom", t));
    ConvSpec u = plain(16, 3, 64, {32, 64, 64}, {3, 3, 3});
    u.pad = {1, 1, 1};
    v.push_back(conv_wl("conv_standard_3D_padded", "custom", u));
  }
  // Transposed convolutions (weight [in_ch, out_ch, k…]).
  struct TSpec {
    const char* name;
    std::vector<std::int64_t> in, k, stride, pad;
  };
  for (const TSpec& ts : {TSpec{"conv_transposed_1D", {256}, {3}, {1}, {0}},
                          TSpec{"conv_transposed_2D__square_input__square_kernel", {64, 64}, {3, 3}, {1, 1}, {0, 0}},
                          TSpec{"conv_transposed_2D__asymmetric_input__asymmetric_kernel", {32, 64}, {3, 5}, {1, 1}, {0, 0}},
                          TSpec{"conv_transposed_2D_strided_padded", {32, 32}, {4, 4}, {2, 2}, {1, 1}},
                          TSpec{"conv_transposed_3D__square_input__square_kernel", {16, 16, 16}, {3, 3, 3}, {1, 1, 1}, {0, 0, 0}}}) {
    ConvSpec s = plain(16, 32, 16, ts.in, ts.k);
    std::size_t nd = ts.in.size();
    ConvCfg cfg{ts.stride, ts.pad, ones(nd), 1};
    v.push_back(make(ts.name, "level1", "conv", conv_params(s, false), dt_float(), [nd, cfg](Graph& g, const Params& p) {
      T x = g.input(x_shape(p, nd));
      Shape ws{P(p, "in_ch"), P(p, "out_ch")};
      for (std::size_t i = 0; i < nd; ++i) ws.push_back(p.at(kK[3 - nd + i]));
      T w = g.param(ws);
      g.mark_output(conv_transpose(g, x, w, cfg, zeros_v(nd), T{}));
    }));
  }

  // ---- level 2: two convolutions sharing the weight, summed
  struct Pair {
    const char* name;
    std::vector<std::int64_t> in, k, pad;
  };
  for (const Pair& pr : {Pair{"conv1d_conv1d", {512}, {3}, {0}}, Pair{"conv2d_conv2d", {256, 128}, {5, 3}, {0, 0}},
                         Pair{"conv3d_conv3d", {16, 128, 128}, {3, 5, 7}, {0, 0, 0}},
                         Pair{"conv1d_conv1d_padding", {512}, {3}, {2}},
                         Pair{"conv2d_conv2d_padding", {256, 128}, {5, 3}, {2, 2}},
                         Pair{"conv3d_conv3d_padding", {16, 128, 128}, {3, 5, 7}, {1, 2, 3}}}) {
    ConvSpec s = plain(16, 3, 64, pr.in, pr.k);
    std::size_t nd = pr.in.size();
    ConvCfg cfg{ones(nd), pr.pad, ones(nd), 1};
    v.push_back(make(pr.name, "level2", "conv", conv_params(s, false), dt_float(), [nd, cfg](Graph& g, const Params& p) {
      T a = g.input(x_shape(p, nd)), c = g.input(x_shape(p, nd));
      T w = g.param(w_shape(p, nd, P(p, "in_ch"), P(p, "out_ch")));
      T d = conv(g, a, w, cfg, T{});
      T e = conv(g, c, w, cfg, T{});
      g.mark_output(binary(g, d, e, "+"));
    }));
  }
}

}  // namespace steptp::frontend::wl
