// Matrix products: MatMul (numpy batched semantics, 1-D operands promoted and squeezed), Gemm (transA/transB,
// alpha, beta, bias added in a second nest as in the reference corpus), Einsum (explicit or implicit output,
// no ellipsis). Reductions start from 0 by LEIR.md §8.4.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

/// out[sp] (+)= term over the reduction loops of `l` (plain assignment when nothing is reduced).
void emit_sum(Context& ctx, const Loops& l, const std::string& out, ir::DType dt, const std::vector<Expr>& oi,
              Expr term) {
  bool has_r = std::any_of(l.rd.begin(), l.rd.end(), [](const Expr& e) { return e.kind == ir::ExprKind::Var; });
  Expr lhs = Context::ref(out, dt, oi);
  ctx.emit1(l, lhs, has_r ? add(lhs, std::move(term)) : std::move(term));
}

void op_matmul(Context& ctx, const Node& n) {
  const Value a = ctx.in(n, 0), b = ctx.in(n, 1);
  if (a.rank() == 0 || b.rank() == 0) n.fail("scalar operands");
  Shape as = a.shape(), bs = b.shape();
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const std::int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) n.fail(fmt::format("inner dimensions differ ({} vs {})", K, bs[bs.size() - 2]));
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  Shape batch = broadcast_shapes(n, ab, bb);
  Shape os = batch;
  if (!a1) os.push_back(M);
  if (!b1) os.push_back(N);
  std::string out = ctx.def_out(n, 0, a.dtype(), os);
  Shape sp = batch;
  sp.push_back(M);
  sp.push_back(N);
  Loops l = ctx.loops(sp, {K});
  const std::size_t nb = batch.size();
  auto batch_idx = [&](const Shape& s) {
    std::vector<Expr> v;
    for (std::size_t k = 0; k < s.size(); ++k) v.push_back(s[k] == 1 ? ilit(0) : l.sp[nb - s.size() + k]);
    return v;
  };
  std::vector<Expr> ai = batch_idx(ab), bi = batch_idx(bb);
  if (!a1) ai.push_back(l.sp[nb]);
  ai.push_back(l.rd[0]);
  bi.push_back(l.rd[0]);
  if (!b1) bi.push_back(l.sp[nb + 1]);
  std::vector<Expr> oi(l.sp.begin(), l.sp.begin() + static_cast<std::ptrdiff_t>(nb));
  if (!a1) oi.push_back(l.sp[nb]);
  if (!b1) oi.push_back(l.sp[nb + 1]);
  emit_sum(ctx, l, out, a.dtype(), oi, mul(ctx.read(a, ai), ctx.read(b, bi)));
}

void op_gemm(Context& ctx, const Node& n) {
  const Value a = ctx.in(n, 0), b = ctx.in(n, 1);
  if (a.rank() != 2 || b.rank() != 2) n.fail("A and B must be 2-D");
  const bool ta = n.attr_i("transA", 0) != 0, tb = n.attr_i("transB", 0) != 0;
  const double alpha = n.attr_f("alpha", 1.0), beta = n.attr_f("beta", 1.0);
  const std::int64_t M = a.shape()[ta ? 1 : 0], K = a.shape()[ta ? 0 : 1];
  const std::int64_t N = b.shape()[tb ? 0 : 1];
  if (b.shape()[tb ? 1 : 0] != K) n.fail("inner dimensions differ");
  std::string out = ctx.def_out(n, 0, a.dtype(), {M, N});
  Loops l = ctx.loops({M, N}, {K});
  Expr av = ta ? ctx.read(a, {l.rd[0], l.sp[0]}) : ctx.read(a, {l.sp[0], l.rd[0]});
  Expr bv = tb ? ctx.read(b, {l.sp[1], l.rd[0]}) : ctx.read(b, {l.rd[0], l.sp[1]});
  Expr term = mul(av, bv);
  if (alpha != 1.0) term = mul(flit(alpha), term);
  emit_sum(ctx, l, out, a.dtype(), l.sp, term);
  if (const Value* c = ctx.opt_in(n, 2); c && beta != 0.0) {
    const Value cv = *c;
    broadcast_shapes(n, {M, N}, cv.shape());
    if (cv.rank() > 2) n.fail("C has rank > 2");
    Loops l2 = ctx.loops({M, N});
    Expr ce = ctx.read_bcast(cv, l2.sp);
    if (beta != 1.0) ce = mul(flit(beta), ce);
    Expr lhs = Context::ref(out, a.dtype(), l2.sp);
    ctx.emit1(l2, lhs, add(lhs, ce));
  }
}

void op_einsum(Context& ctx, const Node& n) {
  std::string eq = n.attr_s("equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  if (eq.find('.') != std::string::npos) n.fail("ellipsis is not supported");
  std::string lhs = eq, rhs;
  bool explicit_out = false;
  if (auto p = eq.find("->"); p != std::string::npos) {
    lhs = eq.substr(0, p);
    rhs = eq.substr(p + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms;
  for (std::size_t s = 0;;) {
    auto c = lhs.find(',', s);
    terms.push_back(lhs.substr(s, c == std::string::npos ? std::string::npos : c - s));
    if (c == std::string::npos) break;
    s = c + 1;
  }
  std::vector<Value> xs;
  for (std::size_t i = 0; i < n.n_in(); ++i) xs.push_back(ctx.in(n, i));
  if (xs.size() != terms.size()) n.fail("equation and inputs disagree");
  std::map<char, std::int64_t> ext;
  std::map<char, int> count;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (terms[i].size() != xs[i].rank()) n.fail("equation rank differs from an input's rank");
    for (std::size_t k = 0; k < terms[i].size(); ++k) {
      char c = terms[i][k];
      if (!std::isalpha(static_cast<unsigned char>(c))) n.fail("bad equation");
      if (ext.count(c) && ext[c] != xs[i].shape()[k]) n.fail(fmt::format("extent of '{}' differs", c));
      ext[c] = xs[i].shape()[k];
      ++count[c];
    }
  }
  if (!explicit_out)
    for (auto& [c, k] : count)
      if (k == 1) rhs.push_back(c);
  Shape os, rs;
  std::string red;
  for (char c : rhs) {
    if (!ext.count(c)) n.fail("output label not in inputs");
    os.push_back(ext[c]);
  }
  for (auto& [c, e] : ext)
    if (rhs.find(c) == std::string::npos) { red.push_back(c); rs.push_back(e); }
  std::string out = ctx.def_out(n, 0, xs[0].dtype(), os);
  Loops l = ctx.loops(os, rs);
  std::map<char, Expr> idx;
  for (std::size_t k = 0; k < rhs.size(); ++k) idx[rhs[k]] = l.sp[k];
  for (std::size_t k = 0; k < red.size(); ++k) idx[red[k]] = l.rd[k];
  std::optional<Expr> term;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::vector<Expr> ii;
    for (char c : terms[i]) ii.push_back(idx.at(c));
    Expr r = ctx.read(xs[i], ii);
    term = term ? mul(*term, r) : r;
  }
  emit_sum(ctx, l, out, xs[0].dtype(), l.sp, *term);
}

}  // namespace

void register_linalg_ops(OpTable& t) {
  t["MatMul"] = op_matmul;
  t["Gemm"] = op_gemm;
  t["Einsum"] = op_einsum;
}

}  // namespace steptp::frontend::onnx_detail
