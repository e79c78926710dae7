// Judging one draw of the equivalence check (LEIR.md §11 steps 3-5), for every phase: both programs run on the
// draw (the original failing is inconclusive, E502; the candidate failing rejects it, E503), every output element
// is compared (step 4, equiv/compare.hpp elements_match), and a candidate output that is all zeros, all NaN or
// constant while the original's is not is degenerate (step 5). A typed run's float element outside the tolerance is
// judged again from both programs' f64 runs on the draw, with the rounding allowance of step 4b; the range rule
// leaves an overflow threshold that a rewrite moved unjudged, and an integer or bool difference on a draw near exp's
// f64 overflow point is judged again on the same draw with its float inputs clamped (check_equivalence's contract,
// equiv/equivalence.hpp).
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "equiv/compare.hpp"
#include "equiv/context.hpp"

namespace steptp::equiv::detail {
namespace {

std::string element(const Tensor& t, const std::string& name, std::int64_t flat) {
  std::string s = name;
  if (t.shape.empty()) return s;
  std::vector<std::int64_t> idx(t.shape.size());
  std::int64_t rest = flat;
  for (std::size_t k = t.shape.size(); k-- > 0;) {
    idx[k] = rest % t.shape[k];
    rest /= t.shape[k];
  }
  s += '[';
  for (std::size_t k = 0; k < idx.size(); ++k) {
    if (k) s += ',';
    s += std::to_string(idx[k]);
  }
  return s + "]";
}

/// Above this magnitude (2^9) a float input puts exp(x), or exp(x) times another input, within reach of the f64
/// overflow point (exp(709.78) is the largest finite value; a draw of -704 overflowed `A*exp(-A)`). The draws that
/// reach it (distribution S at scale 2^10, guided draws up to 2^12) are where an equivalent rewrite that moves an
/// overflow threshold (STRATEGIES.md §6 range rule: exp(x-m) against exp(x)*exp(-m)) gives an infinity or a NaN
/// that the original does not.
constexpr double kExpOverflowF64 = 0x1.0p9;

/// The draw `in` with every float input of magnitude above `bound` set to +-bound (integers, bools and NaN kept):
/// where the range rule leaves a difference unjudged, the same draw without the values that reach exp's overflow.
TensorMap clamp_float_inputs(TensorMap in, double bound) {
  for (auto& [name, t] : in)
    if (ir::is_float(t.dtype))
      for (double& v : t.data)
        if (std::fabs(v) > bound) v = std::copysign(bound, v);
  return in;
}

bool all_non_finite(const Tensor& t) {
  for (double v : t.data)
    if (std::isfinite(v)) return false;
  return true;
}

struct Props {
  bool zeros = true, nans = true, constant = true;
};
/// Is `t` all zeros, all NaN, constant? With `noise` > 0 (the original's side of the degenerate-candidate rule,
/// §11 step 5), values within 2^-10 of the per-dtype tolerance of zero, or of the first element, count as equal:
/// a sum that cancels to 1e-17 in one order and to 0 in another is rounding, not a degenerate rewrite.
Props props(const Tensor& t, double noise = 0) {
  Props p;
  const auto& d = t.data;
  const auto [rtol, atol] = element_tolerance(t.dtype);
  const double za = noise * atol, zr = noise * rtol;
  for (std::size_t k = 0; k < d.size(); ++k) {
    if (!(std::fabs(d[k]) <= za)) p.zeros = false;
    if (!std::isnan(d[k])) p.nans = false;
    if (!(d[k] == d[0]) && !(std::fabs(d[k] - d[0]) <= za + zr * std::fabs(d[0]))) p.constant = false;
  }
  if (d.size() <= 1) p.constant = false;
  return p;
}

/// What makes candidate output `cand` degenerate against the original's `orig` (step 5), or null.
const char* degenerate_kind(const Tensor& cand, const Tensor& orig) {
  const Props pa = props(cand), pb = props(orig, 0x1.0p-10);
  return pa.zeros && !pb.zeros         ? "all zeros"
         : pa.nans && !pb.nans         ? "all NaN"
         : pa.constant && !pb.constant ? "constant"
                                       : nullptr;
}

// A typed run's mismatch is judged again with both programs' f64 runs on the draw (run once, when needed).
// A class-R rewrite changes the rounding points and the intermediate storage (STRATEGIES.md §6), so rounding
// is excused on both sides: the original's allowance (§11 step 4b, per element) plus the candidate's own
// rounding level (rounding_level); a typed infinity or NaN whose own program's f64 value is finite is an
// overflow (or an underflow into 0/0) of the declared types and is judged on the two f64 values (overflow
// thresholds are not domain conditions).
// An integer or bool element compares values: one that differs in a typed run while both programs' f64 runs
// agree on it is a comparison that the declared types' rounding flipped (an f32 store of exp(-C) that
// underflows to 0, a sign test of an f16 product that underflows), a class-R effect: not judged. One that
// differs on a draw near exp's f64 overflow point (an f64 exp that underflows: exp(0-|A|)>0 against
// exp(1-|A|)>0 at |A| = 745.5) is judged again on the same draw with its float inputs clamped to 2^9, where
// a difference that does not need the overflow point still shows (clamp_float_inputs).
struct DrawJudge {
  Context& c;
  const TensorMap& in;
  std::string where;        // the draw, for messages
  bool& clamp;              // set: judge the draw again clamped (run_on)
  interp::RunOptions f64;   // the f64 runs' options
  TensorMap exact, exact_a;  // both programs' f64 outputs, once run
  bool exact_a_failed = false;
  int beyond = -1;  // does this draw hold a float input of magnitude above kExpOverflowF64? (-1: not yet known)

  bool beyond_exp_overflow() {
    if (beyond < 0) {
      beyond = 0;
      for (const auto& [name, t] : in)
        if (ir::is_float(t.dtype))
          for (double v : t.data)
            if (std::fabs(v) > kExpOverflowF64) beyond = 1;
    }
    return beyond == 1;
  }

  // Both programs in f64 on this draw (once): false, with `early` set, when the original cannot run so (E502);
  // a candidate that cannot gets no allowance of its own (exact_a_failed).
  bool f64_runs() {
    if (exact.empty()) {
      try {
        exact = c.A->run(in, f64);
      } catch (const std::exception& ex) {
        c.early = c.fail(Code::E502, "original fails to run in f64 (inconclusive) on " + where + ": " + error_text(ex));
        return false;
      }
    }
    if (exact_a.empty() && !exact_a_failed) {
      try {
        exact_a = c.B->run(in, f64);
      } catch (const std::exception&) {
        exact_a_failed = true;
      }
    }
    return true;
  }

  /// Does element `e` of output `k` match (original `tb`, candidate `ta`)? nullopt (early set) when the original
  /// cannot run in f64. `allowance` and `level_a` are the output's, computed on first need.
  std::optional<bool> matches(const ir::KnownBuffer& k, std::size_t e, const Tensor& tb, const Tensor& ta,
                              std::vector<double>& allowance, double& level_a) {
    const Options& opt = c.opt;
    const double a = ta.data[e], b = tb.data[e];
    if (opt.exact) return same_value(a, b);
    double ja = a, jb = b;  // the values judged: a typed overflow's f64 values
    bool match = elements_match(a, b, k.dtype, opt.rtol_scale);  // §11 step 4, shared with lowering checks
    if (!match && c.ro.typed && ir::is_float(k.dtype)) {
      if (!f64_runs()) return std::nullopt;
      const double xb = exact.at(k.name).data[e], xa = exact_a_failed ? a : exact_a.at(k.name).data[e];
      if (allowance.empty()) allowance = rounding_allowance(tb.data, exact.at(k.name).data);
      if (level_a < 0) level_a = exact_a_failed ? 0.0 : rounding_level(ta.data, exact_a.at(k.name).data);
      const bool overflow = (!std::isfinite(b) && std::isfinite(xb)) || (!std::isfinite(a) && std::isfinite(xa));
      if (overflow) {
        ja = xa;
        jb = xb;
      }
      match = overflow ? elements_match(ja, jb, k.dtype, opt.rtol_scale)
                       : elements_match(a, b, k.dtype, opt.rtol_scale, allowance[e] + level_a);
    } else if (!match && !ir::is_float(k.dtype)) {
      if (c.ro.typed) {
        if (!f64_runs()) return std::nullopt;
        if (!exact_a_failed && same_value(exact.at(k.name).data[e], exact_a.at(k.name).data[e])) {
          match = true;
          ++c.typed_flips;
        }
      }
      if (!match && beyond_exp_overflow()) {
        match = true;
        ++c.range_flips;
        clamp = true;
      }
    }
    // STRATEGIES.md §6 range rule, in f64: on a draw that can overflow exp in f64, a value that is infinite or
    // NaN in one program and not the same in the other is an overflow threshold the rewrite moved (exp(x-m)
    // against exp(x)*exp(-m); inf - inf against inf), not judged.
    if (!match && !(std::isfinite(ja) && std::isfinite(jb)) && beyond_exp_overflow()) {
      match = true;
      ++c.overflow_unjudged;
    }
    return match;
  }

  /// Compares every element of output `k` (step 4), recording the largest errors and the mismatches; false (early
  /// set) when the original cannot run in f64.
  bool compare_elements(const ir::KnownBuffer& k, const Tensor& tb, const Tensor& ta, const ErrLocation& at) {
    Result& r = c.r;
    std::vector<double> allowance;
    double level_a = -1;  // the candidate's rounding level on this output (rounding_level), once computed
    for (std::size_t e = 0; e < tb.data.size(); ++e) {
      const double a = ta.data[e], b = tb.data[e];
      ErrLocation loc = at;
      loc.typed = c.ro.typed;
      loc.output = k.name;
      loc.index = static_cast<std::int64_t>(e);
      loc.a = a;
      loc.b = b;
      const std::optional<bool> match = matches(k, e, tb, ta, allowance, level_a);
      if (!match) return false;
      if (std::isfinite(a) && std::isfinite(b)) {
        const double ab = std::fabs(a - b);
        if (!c.have_abs || ab > r.max_abs_err) { r.max_abs_err = ab; r.max_abs_at = loc; c.have_abs = true; }
        if (b != 0.0) {
          const double rel = ab / std::fabs(b);
          if (!c.have_rel || rel > r.max_rel_err) { r.max_rel_err = rel; r.max_rel_at = loc; c.have_rel = true; }
        }
      }
      if (!*match) {
        if (!r.has_mismatch) {
          r.has_mismatch = true;
          r.first_mismatch = loc;
          c.first_name = element(tb, k.name, static_cast<std::int64_t>(e));
        }
        ++c.mismatches;
      }
    }
    return true;
  }

  /// The degenerate-candidate rule (step 5) for output `k`, until a first finding; false (early set) when the
  /// original cannot run in f64.
  bool check_degenerate(const ir::KnownBuffer& k, const Tensor& tb, const Tensor& ta) {
    if (!c.degenerate.empty()) return true;
    const char* what = degenerate_kind(ta, tb);
    // In a typed run, rounding alone can make an output constant, zero or NaN (values that differ by less than
    // an f16 ulp, an underflow, an overflow into inf - inf): a typed degeneracy counts when the two programs'
    // f64 runs on the draw show it too (a candidate that cannot run in f64 keeps it).
    const Tensor* judged = &ta;  // the candidate output `what` describes
    if (what && c.ro.typed) {
      if (!f64_runs()) return false;
      if (!exact_a_failed) {
        judged = &exact_a.at(k.name);
        what = degenerate_kind(*judged, exact.at(k.name));
      }
    }
    // A float output made only of infinities and NaNs on a draw near exp's f64 overflow point is the range rule's
    // case for a whole output (an exp that underflowed to 0 and then divided, D/D*D against D; exp(A)*exp(C) with
    // every C past 709): not judged either. An integer or bool output made constant or zero there is judged on the
    // clamped draw, as its elements are.
    if (what && beyond_exp_overflow() && (!ir::is_float(k.dtype) || all_non_finite(*judged))) {
      clamp = clamp || !ir::is_float(k.dtype);
      what = nullptr;
    }
    if (what)
      c.degenerate = "candidate output " + k.name + " is " + what + " on " + where + " while the original's is not";
    return true;
  }
};

/// run_on's work for one draw; `clamp` is set when an integer or bool output differs on a draw near exp's f64
/// overflow point (the range rule's case for a comparison), which run_on then judges clamped.
bool judge_draw(Context& c, const TensorMap& in, const ErrLocation& at, TensorMap& ob, TensorMap& oa, bool& clamp) {
  ++c.draws;
  const std::string where = draw_label(at) + (c.ro.typed && !c.opt.typed ? ", typed" : "");
  try {
    ob = c.A->run(in, c.ro);
  } catch (const std::exception& e) {
    c.early = c.fail(Code::E502, "original fails to run (inconclusive) on " + where + ": " + error_text(e));
    return false;
  }
  c.done_before += c.A->last_steps();
  try {
    oa = c.B->run(in, c.ro);
  } catch (const std::exception& e) {
    c.early = c.fail(Code::E503, "candidate fails to run on " + where + ": " + error_text(e));
    return false;
  }
  c.done_before += c.B->last_steps();
  DrawJudge j{c, in, where, clamp, c.ro, {}, {}, false, -1};
  j.f64.typed = false;
  for (const auto& k : c.original.known) {
    if (k.role != ir::Role::Output) continue;
    const Tensor& tb = ob.at(k.name);
    const Tensor& ta = oa.at(k.name);
    if (!j.compare_elements(k, tb, ta, at) || !j.check_degenerate(k, tb, ta)) return false;
  }
  track(c, ob);
  return true;
}

}  // namespace

bool run_on(Context& c, const TensorMap& in, const ErrLocation& at, TensorMap& ob, TensorMap& oa) {
  bool clamp = false;
  if (!judge_draw(c, in, at, ob, oa, clamp)) return false;
  if (!clamp) return true;
  ErrLocation near = at;
  near.clamped = kExpOverflowF64;
  TensorMap cb, ca;
  return judge_draw(c, clamp_float_inputs(in, kExpOverflowF64), near, cb, ca, clamp);
}

bool run_draw(Context& c, std::uint64_t seed, Distribution dist) {
  TensorMap in = make_inputs(*c.A, seed, dist, c.literals);
  if (c.opt.fixed) apply_fixed_inputs(in, *c.opt.fixed);
  ErrLocation at;
  at.seed = seed;
  at.dist = dist;
  TensorMap ob, oa;
  return run_on(c, in, at, ob, oa);
}

}  // namespace steptp::equiv::detail
