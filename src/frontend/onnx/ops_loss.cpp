// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (ONNX operator spec, opsets 12-13): input [N, C, D1..Dk],
// integer target [N, D1..Dk], optional weight [C], ignore_index, reduction none/sum/mean. SoftmaxCrossEntropyLoss
// computes log_softmax over axis 1 as max, sum-exp and subtract nests (its optional second output), then both ops
// gather -logp[n, target, d] * weight[target] per element (0 where target == ignore_index) and reduce: `sum` into a
// scalar, `mean` as that sum divided by the sum of the weights of the counted elements.
#include <fmt/format.h>

#include "frontend/onnx/context.hpp"
#include "frontend/onnx/expr_build.hpp"

namespace steptp::frontend::onnx_detail {
namespace {

using ir::Expr;
using namespace ex;

/// log_softmax of `x` over axis 1 into a new buffer of x's shape (output 1 when the node requests it).
std::string emit_log_softmax(Context& ctx, const Node& n, const Value& x) {
  const ir::DType dt = x.dtype();
  const bool want = n.n_out() > 1 && !n.out_name(1).empty();
  const std::string lp = want ? ctx.def_out(n, 1, dt, x.shape()) : ctx.temp();
  Shape outer = x.shape();
  const std::int64_t C = outer[1];
  outer.erase(outer.begin() + 1);
  auto with_c = [](std::vector<Expr> idx, const Expr& c) {
    idx.insert(idx.begin() + 1, c);
    return idx;
  };
  const std::string mx = ctx.temp(), sum = ctx.temp();
  {
    Loops l = ctx.loops(outer, {C});
    Expr m = Context::ref(mx, dt, l.sp);
    ctx.emit1(l, m, emax(m, ctx.read(x, with_c(l.sp, l.rd[0]))));
  }
  {
    Loops l = ctx.loops(outer, {C});
    Expr s = Context::ref(sum, dt, l.sp);
    ctx.emit1(l, s, add(s, eexp(sub(ctx.read(x, with_c(l.sp, l.rd[0])), Context::ref(mx, dt, l.sp)))));
  }
  Loops l = ctx.loops(x.shape());
  std::vector<Expr> o(l.sp);
  o.erase(o.begin() + 1);
  ctx.emit1(l, Context::ref(lp, dt, l.sp),
            sub(sub(ctx.read(x, l.sp), Context::ref(mx, dt, o)), elog(Context::ref(sum, dt, o))));
  return lp;
}

/// The NLL part shared by both ops; `logp` reads the log-probabilities [N, C, D...] at an index.
void emit_nll(Context& ctx, const Node& n, const Value& target, ir::DType dt, const Shape& in_shape,
              const std::function<Expr(std::vector<Expr>)>& logp) {
  if (!ir::is_int(target.dtype())) n.fail("the target must be an integer tensor");
  if (in_shape.size() < 2) n.fail("the input must have rank 2 or more ([N, C, ...])");
  Shape ts = in_shape;
  ts.erase(ts.begin() + 1);
  if (target.shape() != ts)
    n.fail(fmt::format("target has shape [{}], expected [{}]", fmt::join(target.shape(), ","), fmt::join(ts, ",")));
  const Value* w = ctx.opt_in(n, 2);
  if (w && w->shape() != Shape{in_shape[1]}) n.fail(fmt::format("weight must have shape [{}]", in_shape[1]));
  const std::string red = n.attr_s("reduction", "mean");
  if (red != "none" && red != "sum" && red != "mean") n.fail(fmt::format("unsupported reduction '{}'", red));
  const bool has_ig = n.has_attr("ignore_index");
  const std::int64_t ig = n.attr_i("ignore_index", 0);
  // per element: -logp[n, t, d...] * w[t], or 0 where t == ignore_index; `weight_of` is w[t] (or 1) likewise
  auto element = [&](const std::vector<Expr>& idx, bool weight_only) {
    const Expr t = ctx.read(target, idx);
    std::vector<Expr> li = idx;
    li.insert(li.begin() + 1, t);
    Expr wt = w ? ctx.read(*w, {t}) : flit(1.0);
    Expr e = weight_only ? wt : w ? neg(mul(logp(li), wt)) : neg(logp(li));
    return has_ig ? ite(cmp(ir::CmpOp::Eq, t, ilit(ig)), flit(0.0), e) : e;
  };
  if (red == "none") {
    const std::string out = ctx.def_out(n, 0, dt, ts);
    Loops l = ctx.loops(ts);
    ctx.emit1(l, Context::ref(out, dt, l.sp), element(l.sp, false));
    return;
  }
  auto total = [&](const std::string& buf, std::vector<Expr> at, bool weight_only) {
    Loops l = ctx.loops({}, ts);
    Expr acc = Context::ref(buf, dt, std::move(at));
    ctx.emit1(l, acc, add(acc, element(l.rd, weight_only)));
  };
  const std::string out = ctx.def_out(n, 0, dt, {});
  if (red == "sum") {
    total(out, {}, false);
    return;
  }
  const std::string num = ctx.temp();
  total(num, {ilit(0)}, false);
  Expr den = flit(static_cast<double>(numel_of(ts)));
  if (w || has_ig) {
    const std::string d = ctx.temp();
    total(d, {ilit(0)}, true);
    den = Context::ref(d, dt, {ilit(0)});
  }
  Loops l = ctx.loops({});
  ctx.emit1(l, Context::ref(out, dt, {}), div(Context::ref(num, dt, {ilit(0)}), den));
}

void op_nll(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const Value target = ctx.in(n, 1);
  if (!ir::is_float(x.dtype())) n.fail("needs a floating-point input");
  emit_nll(ctx, n, target, x.dtype(), x.shape(), [&](std::vector<Expr> idx) { return ctx.read(x, std::move(idx)); });
}

void op_softmax_cross_entropy(Context& ctx, const Node& n) {
  const Value x = ctx.in(n, 0);
  const Value target = ctx.in(n, 1);
  if (!ir::is_float(x.dtype())) n.fail("needs a floating-point input");
  if (x.rank() < 2) n.fail("the scores must have rank 2 or more ([N, C, ...])");
  const std::string lp = emit_log_softmax(ctx, n, x);
  const ir::DType dt = x.dtype();
  emit_nll(ctx, n, target, dt, x.shape(), [&](std::vector<Expr> idx) { return Context::ref(lp, dt, std::move(idx)); });
}

}  // namespace

void register_loss_ops(OpTable& t) {
  t["NegativeLogLikelihoodLoss"] = op_nll;
  t["SoftmaxCrossEntropyLoss"] = op_softmax_cross_entropy;
}

}  // namespace steptp::frontend::onnx_detail
