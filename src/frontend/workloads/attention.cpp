// Attention family (level 2): causal-masked multi-head (MHA), multi-query (MQA) and grouped-query (GQA) attention
// on x [batch, seq, d_model], optionally followed by a Gemm, an activation and a reduction over the sequence.
// The reference's MQA computes its scale from a tensor (`O=head_dim; Q=sqrt(O); R=1.0/Q`, in f64); MHA/GQA scale
// by the literal 1/sqrt(head_dim).
#include <cmath>

#include "frontend/workloads/families.hpp"

namespace steptp::frontend::wl {

namespace {
enum class Kind { MHA, MQA, GQA };
struct Tail {
  bool gemm = false;
  std::string act;  // "", ReLU, GeLU, Tanh
  std::string red;  // "", sum, max, mean
};

T attention(Graph& g, const Params& p, Kind kind, const Tail& tail) {
  std::int64_t b = P(p, "batch"), s = P(p, "seq"), dm = P(p, "d_model"), h = P(p, "heads");
  std::int64_t hd = dm / h;
  std::int64_t kvh = kind == Kind::MHA ? h : kind == Kind::MQA ? 1 : P(p, "kv_heads");
  T x = g.input({b, s, dm});
  T mask = g.constant({1, 1, s, s}, ir::DType::Bool);
  T qw = g.param({dm, dm}), qb = g.param({dm});
  T kw = g.param({kvh * hd, dm}), kb = g.param({kvh * hd});
  T vw = g.param({kvh * hd, dm}), vb = g.param({kvh * hd});
  T ow = g.param({dm, dm}), ob = g.param({dm});
  T gw = tail.gemm ? g.param({P(p, "gemm_out"), dm}) : T{};

  T q = linear(g, x, qw, qb);
  T qv = view(g, q, {b, s, h, hd});
  T qt = transpose(g, qv, 1, 2);  // [b, h, s, hd]
  T kt, vt;
  if (kind == Kind::MQA) {
    T k = linear(g, x, kw, kb);
    T v = linear(g, x, vw, vb);
    T ku = unsqueeze(g, k, 1);
    kt = expand(g, ku, {b, h, s, hd});
    T vu = unsqueeze(g, v, 1);
    vt = expand(g, vu, {b, h, s, hd});
  } else if (kind == Kind::GQA) {
    T k = linear(g, x, kw, kb);
    T kv = view(g, k, {b, s, kvh, hd});
    T v = linear(g, x, vw, vb);
    T vv = view(g, v, {b, s, kvh, hd});
    T rep[2];
    T src[2] = {kv, vv};
    for (int i = 0; i < 2; ++i) {
      T u = unsqueeze(g, src[i], 2);
      T e = expand(g, u, {b, s, h / kvh, kvh, hd});
      T c = copy(g, e);
      rep[i] = view(g, c, {b, s, h, hd});
    }
    kt = transpose(g, rep[0], 1, 2);
    vt = transpose(g, rep[1], 1, 2);
  } else {
    T k = linear(g, x, kw, kb);
    T kv = view(g, k, {b, s, h, hd});
    kt = transpose(g, kv, 1, 2);
    T v = linear(g, x, vw, vb);
    T vv = view(g, v, {b, s, h, hd});
    vt = transpose(g, vv, 1, 2);
  }
  T ktt = transpose(g, kt, -2, -1);
  T sc = matmul(g, qt, ktt);
  T scaled;
  if (kind == Kind::MQA) {
    T o = g.node({}, ir::DType::F64);
    T qq = g.node({}, ir::DType::F64);
    T r = g.node({}, ir::DType::F64);
    g.step([o, qq, r, hd](Graph& gg) {
      Buf ob2 = gg.buf(o), qb2 = gg.buf(qq), rb = gg.buf(r);
      gg.nest({{'B', 1, "tx"}}, {ref(ob2, {}) + "=" + ilit(hd)});
      gg.nest({{'B', 1, "tx"}}, {ref(qb2, {}) + "=sqrt(" + ref(ob2, {}) + ")"});
      gg.nest({{'B', 1, "tx"}}, {ref(rb, {}) + "=1.0/" + ref(qb2, {})});
    });
    scaled = binary(g, sc, r, "*");
  } else {
    scaled = binary_lit(g, sc, "*", flit(1.0 / std::sqrt(static_cast<double>(hd))));
  }
  T masked = map(g, {mask, scaled}, [](const auto& r) { return "if_then_else(" + r[0] + ",-inf," + r[1] + ")"; });
  T attn = softmax(g, masked, -1);
  T ctx = matmul(g, attn, vt);
  T ct = transpose(g, ctx, 1, 2);
  T cc = copy(g, ct);
  T cv = view(g, cc, {b, s, dm});
  T y = linear(g, cv, ow, ob);
  if (tail.gemm) y = linear(g, y, gw, T{});
  if (tail.act == "ReLU") y = unary(g, y, relu_e);
  else if (tail.act == "GeLU") y = unary(g, y, gelu_e);
  else if (tail.act == "Tanh") y = wl::tanh(g, y);
  if (tail.red == "sum") y = sum(g, y, {1}, true);
  else if (tail.red == "mean") y = mean(g, y, {1}, true);
  else if (tail.red == "max") y = amax(g, y, 1, true, true);
  return y;
}
}  // namespace

void add_attention(std::vector<Workload>& v) {
  struct Var {
    std::string suffix;
    Tail tail;
  };
  std::vector<Var> vars{{"", {}},
                        {"_sum", {false, "", "sum"}},
                        {"_max", {false, "", "max"}},
                        {"_mean", {false, "", "mean"}},
                        {"_Gemm", {true, "", ""}},
                        {"_Gemm_ReLU", {true, "ReLU", ""}},
                        {"_Gemm_GeLU", {true, "GeLU", ""}},
                        {"_Gemm_Tanh", {true, "Tanh", ""}},
                        {"_Gemm_ReLU_sum", {true, "ReLU", "sum"}},
                        {"_Gemm_ReLU_max", {true, "ReLU", "max"}},
                        {"_Gemm_ReLU_mean", {true, "ReLU", "mean"}},
                        {"_Gemm_Tanh_sum", {true, "Tanh", "sum"}},
                        {"_Gemm_Tanh_max", {true, "Tanh", "max"}},
                        {"_Gemm_Tanh_mean", {true, "Tanh", "mean"}},
                        {"_Gemm_GeLU_sum", {true, "GeLU", "sum"}},
                        {"_Gemm_GeLU_max", {true, "GeLU", "max"}},
                        {"_Gemm_GeLU_mean", {true, "GeLU", "mean"}}};
  for (Kind kind : {Kind::MHA, Kind::MQA, Kind::GQA}) {
    std::string base = kind == Kind::MHA ? "MHA" : kind == Kind::MQA ? "MQA" : "GQA";
    for (const auto& var : vars) {
      std::vector<ParamSpec> ps{{"batch", 64, 1, 256, 2},
                                {"seq", 256, 1, 1024, 8},
                                {"d_model", 128, 1, 1024, 16},
                                {"heads", 8, 1, 32, 4}};
      if (kind == Kind::GQA) ps.push_back({"kv_heads", 2, 1, 32, 2});
      if (var.tail.gemm) ps.push_back({"gemm_out", 64, 1, 1024, 8});
      Tail tail = var.tail;
      v.push_back(make(
          base + var.suffix, "level2", "attention", ps, dt_float(),
          [kind, tail](Graph& g, const Params& p) { g.mark_output(attention(g, p, kind, tail)); },
          [kind](const Params& p) -> std::string {
            if (P(p, "d_model") % P(p, "heads")) return "d_model not divisible by heads";
            if (kind == Kind::GQA && P(p, "heads") % P(p, "kv_heads")) return "heads not divisible by kv_heads";
            return "";
          }));
    }
  }
}

}  // namespace steptp::frontend::wl
