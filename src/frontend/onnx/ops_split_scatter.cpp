// Split (opsets 2-18: `split` attribute, `split` input, equal parts, `num_outputs`) as one copy nest per output,
// and ScatterND with constant indices (reduction 'none') as one select nest over the data shape driven by
// constant row tables (ONNX operator spec). Both fold at import time when every input is constant (fold.cpp).
#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"
#include "frontend/onnx/shape_rules.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

void op_split(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const auto axis = static_cast<std::size_t>(norm_axis(n, n.attr_i("axis", 0), static_cast<std::int64_t>(x.rank())));
  const Shape sizes = split_sizes(ctx, n, x.shape()[axis]);
  std::int64_t off = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Shape os = x.shape();
    os[axis] = sizes[i];
    std::string out = ctx.def_out(n, i, x.dtype(), os);
    Loops l = ctx.loops(os);
    std::vector<Expr> idx = l.sp;
    idx[axis] = offset(idx[axis], off);
    ctx.emit1(l, Context::ref(out, x.dtype(), l.sp), ctx.read(x, idx));
    off += sizes[i];
  }
}

/// out[i] = updates[row(i_0..i_{k-1}), i_k..] where a row targets that slice (the last such row), else data[i].
/// The row's multi-index into updates' leading dims comes from a constant table over data's first k dims.
void op_scatter_nd(Context& ctx, const Node& n) {
  const Value data = ctx.in(n, 0);
  const Value upd = ctx.in(n, 2);
  const Value& ind = ctx.in(n, 1);
  if (!ind.is_const) n.fail("indices must be a constant (computed at import time)");
  const std::string red = n.attr_s("reduction", "none");
  if (red != "none") n.fail(fmt::format("unsupported reduction '{}' on non-constant data", red));
  const Shape targets = scatter_nd_targets(n, data.shape(), ind.t, upd.shape());
  const auto k = static_cast<std::size_t>(ind.t.shape.back());
  const Shape rows_shape(ind.t.shape.begin(), ind.t.shape.end() - 1);  // updates' leading dims
  const Shape outer(data.shape().begin(), data.shape().begin() + static_cast<std::ptrdiff_t>(k));
  // table[o, j] = coordinate j of the row that writes outer slice o; table[o, q] = 1 when some row does.
  const std::size_t q = rows_shape.size();
  interp::Tensor table{ir::DType::I64, outer, {}};
  table.shape.push_back(static_cast<std::int64_t>(q + 1));
  table.data.assign(static_cast<std::size_t>(numel_of(outer)) * (q + 1), 0.0);
  for (std::size_t r = 0; r < targets.size(); ++r) {
    auto o = static_cast<std::size_t>(targets[r]);
    std::int64_t rem = static_cast<std::int64_t>(r);
    for (std::size_t j = q; j-- > 0;) {
      table.data[o * (q + 1) + j] = static_cast<double>(rem % rows_shape[j]);
      rem /= rows_shape[j];
    }
    table.data[o * (q + 1) + q] = 1;
  }
  ctx.set_const(n.out_name(0) + "#rows", std::move(table), false);
  const Value tab = ctx.value(n.out_name(0) + "#rows");
  std::string out = ctx.def_out(n, 0, data.dtype(), data.shape());
  Loops l = ctx.loops(data.shape());
  std::vector<Expr> key(l.sp.begin(), l.sp.begin() + static_cast<std::ptrdiff_t>(k));
  auto tab_at = [&](std::size_t j) {
    std::vector<Expr> ti = key;
    ti.push_back(ilit(static_cast<std::int64_t>(j)));
    return ctx.read(tab, ti);
  };
  std::vector<Expr> ui;
  for (std::size_t j = 0; j < q; ++j) ui.push_back(tab_at(j));
  ui.insert(ui.end(), l.sp.begin() + static_cast<std::ptrdiff_t>(k), l.sp.end());
  Expr e = ite(cmp(ir::CmpOp::Ne, tab_at(q), ilit(0)), ctx.read(upd, ui), ctx.read(data, l.sp));
  ctx.emit1(l, Context::ref(out, data.dtype(), l.sp), e);
}

}  // namespace

void register_split_scatter_ops(OpTable& t) {
  t["Split"] = op_split;
  t["ScatterND"] = op_scatter_nd;
}

}  // namespace steptp::frontend::onnx_detail
