// Equivalence checking (LEIR.md §11).
#include "interp/equivalence.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "interp/compare.hpp"
#include "interp/guided.hpp"
#include "ir/diag.hpp"

namespace steptp::interp {

std::pair<double, double> tolerance(ir::DType t) { return element_tolerance(t); }

std::vector<double> comparison_literals(const ir::Program& original, const ir::Program& candidate) {
  const std::vector<double> a = literal_magnitudes(original), b = literal_magnitudes(candidate);
  std::vector<double> all, only;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(all));
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only));
  const std::size_t n = all.size();
  for (std::size_t i = 0; i < n && !only.empty(); ++i) all.push_back(only[i % only.size()]);
  return all;
}

namespace {

std::string error_text(const std::exception& e) {
  if (auto* le = dynamic_cast<const ir::LeirError*>(&e)) return le->diag().headline();
  return e.what();
}

std::string describe_signature_difference(const ir::Task& a, const ir::Task& b) {
  if (a.known.size() != b.known.size())
    return "known lists differ in length (" + std::to_string(a.known.size()) + " vs " +
           std::to_string(b.known.size()) + ")";
  for (std::size_t k = 0; k < a.known.size(); ++k) {
    const auto &x = a.known[k], &y = b.known[k];
    if (x == y) continue;
    // Show the values that differ (names alone say nothing when only the shape or dtype changed).
    const std::string head = "known[" + std::to_string(k) + "] (" + x.name + ") differs in ";
    if (x.name != y.name) return "known[" + std::to_string(k) + "] differs in name (" + x.name + " vs " + y.name + ")";
    if (x.role != y.role) return head + "role (" + std::string(ir::role_name(x.role)) + " vs " + std::string(ir::role_name(y.role)) + ")";
    if (x.dtype != y.dtype)
      return head + "dtype (" + std::string(ir::dtype_name(x.dtype)) + " vs " + std::string(ir::dtype_name(y.dtype)) + ")";
    return head + fmt::format("shape ([{}] vs [{}])", fmt::join(x.shape, ","), fmt::join(y.shape, ","));
  }
  return "known lists differ";
}

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

std::string fmt_num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Bitwise the same value, or both NaN.
bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

/// An output element that changes along a boundary segment (EquivOptions::boundary_pairs_if_cheap).
struct ChangingElement {
  std::string output;
  std::size_t index = 0;
};

/// Output elements of `task` whose value differs between the segment's ends `o0`, `o1` and is piecewise constant
/// along it: the value at the middle `om` repeats one end.
std::vector<ChangingElement> changing_elements(const ir::Task& task, const TensorMap& o0, const TensorMap& o1,
                                               const TensorMap& om) {
  std::vector<ChangingElement> v;
  for (const auto& k : task.known) {
    if (k.role != ir::Role::Output) continue;
    const auto &v0 = o0.at(k.name).data, &v1 = o1.at(k.name).data, &vm = om.at(k.name).data;
    for (std::size_t e = 0; e < v0.size(); ++e)
      if (!same_value(v0[e], v1[e]) && (same_value(vm[e], v0[e]) || same_value(vm[e], v1[e])))
        v.push_back({k.name, e});
  }
  return v;
}

/// A difference between the original's outputs `b` and the candidate's `a` of `task` (a guided draw): NaN against a
/// number (NaN), or an element outside its per-dtype tolerance that also differs by more than 2^-4 of the larger
/// magnitude, or an infinity against another value (Yes). `exact` (class E): any difference in bits is Yes.
enum class Gross { No, Yes, NaN };
Gross gross_mismatch(const ir::Task& task, const TensorMap& b, const TensorMap& a, bool exact) {
  Gross g = Gross::No;
  for (const auto& k : task.known) {
    if (k.role != ir::Role::Output) continue;
    const auto &vb = b.at(k.name).data, &va = a.at(k.name).data;
    for (std::size_t e = 0; e < vb.size(); ++e) {
      const double x = va[e], y = vb[e];
      if (std::isnan(x) != std::isnan(y)) return Gross::NaN;
      if (exact && !same_value(x, y)) g = Gross::Yes;
      if (std::isnan(x) || elements_match(x, y, k.dtype)) continue;
      if (std::isinf(x) || std::isinf(y) || std::fabs(x - y) > 0x1.0p-4 * std::max(std::fabs(x), std::fabs(y)))
        g = Gross::Yes;
    }
  }
  return g;
}

/// Bisects the segment's parameter t for the edge of the constant piece of element `c` of `prog`'s outputs that
/// contains the end the middle repeats, down to kBoundaryWidth. `point(t)` is the draw at t; `o0`, `om` the
/// outputs at t = 0 and 1/2; `steps` counts the statement executions and `within()` says whether more may be
/// spent. Returns [lo, hi] around the edge, or nothing when the budget ran out or `prog` failed to run at a point
/// (the compared draws report such failures).
template <class Point, class Within>
std::optional<std::pair<double, double>> bisect_edge(const Interpreter& prog, const RunOptions& ro, const Point& point,
                                                     const ChangingElement& c, const TensorMap& o0, const TensorMap& om,
                                                     std::uint64_t& steps, const Within& within) {
  const bool from_start = same_value(om.at(c.output).data[c.index], o0.at(c.output).data[c.index]);
  const double piece = om.at(c.output).data[c.index];
  double lo = from_start ? 0.5 : 0.0, hi = from_start ? 1.0 : 0.5;  // the piece holds at lo (from_start) or at hi
  try {
    while (hi - lo > kBoundaryWidth && within()) {
      const double mid = 0.5 * (lo + hi);
      const TensorMap out = prog.run(point(mid), ro);
      steps += prog.last_steps();
      (same_value(out.at(c.output).data[c.index], piece) == from_start ? lo : hi) = mid;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (hi - lo > kBoundaryWidth) return std::nullopt;
  return std::pair{lo, hi};
}

}  // namespace

std::string draw_label(const ErrLocation& at) {
  std::string s = at.guided >= 0 ? "guided draw " + std::to_string(at.guided) + " of seed " + std::to_string(at.seed)
                                  : "seed " + std::to_string(at.seed) + ", " + distribution_name(at.dist);
  if (at.guided < 0 && at.t >= 0) s += std::string("->") + distribution_name(at.to) + " at t=" + fmt_num(at.t);
  if (at.clamped > 0) s += ", float inputs clamped to " + fmt_num(at.clamped);
  return s;
}

std::string EquivResult::to_json() const {
  auto loc = [](const ErrLocation& l) {
    nlohmann::json j{{"output", l.output}, {"index", l.index}, {"seed", l.seed},
                     {"dist", distribution_name(l.dist)}, {"candidate", l.a}, {"original", l.b}};
    if (l.t >= 0) {
      j["to"] = distribution_name(l.to);
      j["t"] = l.t;
    }
    if (l.guided >= 0) {
      j.erase("dist");
      j["guided"] = l.guided;
    }
    if (l.typed) j["typed"] = true;
    if (l.clamped > 0) j["clamped"] = l.clamped;
    return j;
  };
  nlohmann::json j{{"equivalent", equivalent},
                   {"code", code},
                   {"message", message},
                   {"max_abs_err", max_abs_err},
                   {"max_rel_err", max_rel_err},
                   {"max_abs_at", loc(max_abs_at)},
                   {"max_rel_at", loc(max_rel_at)},
                   {"first_mismatch", has_mismatch ? loc(first_mismatch) : nlohmann::json(nullptr)},
                   {"extra_seeds", extra_seeds},
                   {"boundary_pairs", boundary_pairs},
                   {"guided_inputs", guided_inputs},
                   {"guided_kept", guided_kept}};
  return j.dump();
}

EquivResult check_equivalence(const ir::Task& original, const ir::Task& candidate, const EquivOptions& opt) {
  EquivResult r;
  auto fail = [&](const char* code, std::string msg) {
    r.equivalent = false;
    r.code = code;
    r.message = std::move(msg);
    return r;
  };
  if (original.known != candidate.known)
    return fail("E501", "known signatures differ: " + describe_signature_difference(original, candidate));

  std::unique_ptr<Interpreter> A, B;
  try {
    A = std::make_unique<Interpreter>(original);
  } catch (const std::exception& e) {
    return fail("E502", "original is invalid (inconclusive): " + error_text(e));
  }
  try {
    B = std::make_unique<Interpreter>(candidate);
  } catch (const std::exception& e) {
    return fail("E503", "candidate is invalid: " + error_text(e));
  }
  RunOptions ro;
  ro.typed = opt.typed;
  ro.max_steps = opt.max_steps;
  std::uint64_t done_before = 0;  // statement executions of the finished runs (progress)
  if (opt.progress && opt.progress_every) {
    ro.progress = [&](std::uint64_t s) { opt.progress(done_before + s); };
    ro.progress_every = opt.progress_every;
  }

  if (opt.fixed) check_fixed_inputs(original, *opt.fixed);
  const std::vector<double> literals = comparison_literals(original.program, candidate.program);
  std::string degenerate;  // first degenerate finding
  std::size_t mismatches = 0;
  std::string first_name;
  bool have_abs = false, have_rel = false;
  // Distinct values of each output element of the original over the draws (LEIR.md §11 as refined in
  // bench/RESULTS.md, "Adaptive draws"): where a comparison, clamp or bool reduction saturates, the draws say little
  // about an element, so the check goes on for up to opt.extra_seeds_if_insensitive more seeds.
  std::vector<std::vector<double>> first_value, second_value;
  std::vector<std::vector<char>> varied;  // distinct values seen per element, counted up to 3
  std::optional<EquivResult> early;
  auto track = [&](const TensorMap& ob) {
    if (opt.extra_seeds_if_insensitive == 0) return;  // off: nothing to count
    std::size_t o = 0;
    for (const auto& k : original.known) {
      if (k.role != ir::Role::Output) continue;
      const auto& d = ob.at(k.name).data;
      if (o == first_value.size()) {
        first_value.push_back(d);
        second_value.push_back(d);
        varied.emplace_back(d.size(), 1);
      } else {
        for (std::size_t e = 0; e < d.size(); ++e) {
          char& n = varied[o][e];
          if (n >= 3 || std::memcmp(&d[e], &first_value[o][e], sizeof(double)) == 0) continue;
          if (n == 1) {
            second_value[o][e] = d[e];
            n = 2;
          } else if (std::memcmp(&d[e], &second_value[o][e], sizeof(double)) != 0) {
            n = 3;
          }
        }
      }
      ++o;
    }
  };
  auto insensitive = [&] {
    for (const auto& v : varied)
      if (std::any_of(v.begin(), v.end(), [](char n) { return n < 3; })) return true;
    return false;
  };
  // Runs both programs on the draw `in` and compares them; false (with `early` set) when a program fails to run.
  // `at` says where the draw came from; the original's outputs are left in `ob`, the candidate's in `oa`.
  std::uint64_t draws = 0;  // run_on calls so far (for the cost of a further seed)
  std::uint64_t overflow_unjudged = 0;  // elements left unjudged by the f64 range rule (for the message)
  std::uint64_t typed_flips = 0;        // integer/bool elements flipped by typed rounding only (for the message)
  std::uint64_t range_flips = 0;        // integer/bool elements judged on the clamped draw instead (for the message)
  // judge_draw does run_on's work for one draw; `clamp` is set when an integer or bool output differs on a draw near
  // exp's f64 overflow point (the range rule's case for a comparison), which run_on then judges clamped.
  auto judge_draw = [&](const TensorMap& in, const ErrLocation& at, TensorMap& ob, TensorMap& oa, bool& clamp) -> bool {
    ++draws;
    const std::string where = draw_label(at) + (ro.typed && !opt.typed ? ", typed" : "");
    try {
      ob = A->run(in, ro);
    } catch (const std::exception& e) {
      early = fail("E502", "original fails to run (inconclusive) on " + where + ": " + error_text(e));
      return false;
    }
    done_before += A->last_steps();
    try {
      oa = B->run(in, ro);
    } catch (const std::exception& e) {
      early = fail("E503", "candidate fails to run on " + where + ": " + error_text(e));
      return false;
    }
    done_before += B->last_steps();
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
    TensorMap exact, exact_a;
    bool exact_a_failed = false;
    RunOptions f64 = ro;
    f64.typed = false;
    int beyond = -1;  // does this draw hold a float input of magnitude above kExpOverflowF64? (-1: not yet known)
    auto beyond_exp_overflow = [&] {
      if (beyond < 0) {
        beyond = 0;
        for (const auto& [name, t] : in)
          if (ir::is_float(t.dtype))
            for (double v : t.data)
              if (std::fabs(v) > kExpOverflowF64) beyond = 1;
      }
      return beyond == 1;
    };
    // Both programs in f64 on this draw (once): false, with `early` set, when the original cannot run so (E502);
    // a candidate that cannot gets no allowance of its own (exact_a_failed).
    auto f64_runs = [&] {
      if (exact.empty()) {
        try {
          exact = A->run(in, f64);
        } catch (const std::exception& ex) {
          early = fail("E502", "original fails to run in f64 (inconclusive) on " + where + ": " + error_text(ex));
          return false;
        }
      }
      if (exact_a.empty() && !exact_a_failed) {
        try {
          exact_a = B->run(in, f64);
        } catch (const std::exception&) {
          exact_a_failed = true;
        }
      }
      return true;
    };
    for (const auto& k : original.known) {
      if (k.role != ir::Role::Output) continue;
      const Tensor& tb = ob.at(k.name);
      const Tensor& ta = oa.at(k.name);
      std::vector<double> allowance;
      double level_a = -1;  // the candidate's rounding level on this output (rounding_level), once computed
      for (std::size_t e = 0; e < tb.data.size(); ++e) {
        const double a = ta.data[e], b = tb.data[e];
        ErrLocation loc = at;
        loc.typed = ro.typed;
        loc.output = k.name;
        loc.index = static_cast<std::int64_t>(e);
        loc.a = a;
        loc.b = b;
        double ja = a, jb = b;  // the values judged: a typed overflow's f64 values
        bool match;
        if (opt.exact) {
          match = same_value(a, b);
        } else {
          match = elements_match(a, b, k.dtype, opt.rtol_scale);  // §11 step 4, shared with lowering checks
          if (!match && ro.typed && ir::is_float(k.dtype)) {
            if (!f64_runs()) return false;
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
            if (ro.typed) {
              if (!f64_runs()) return false;
              if (!exact_a_failed && same_value(exact.at(k.name).data[e], exact_a.at(k.name).data[e])) {
                match = true;
                ++typed_flips;
              }
            }
            if (!match && beyond_exp_overflow()) {
              match = true;
              ++range_flips;
              clamp = true;
            }
          }
          // STRATEGIES.md §6 range rule, in f64: on a draw that can overflow exp in f64, a value that is infinite or
          // NaN in one program and not the same in the other is an overflow threshold the rewrite moved (exp(x-m)
          // against exp(x)*exp(-m); inf - inf against inf), not judged.
          if (!match && !(std::isfinite(ja) && std::isfinite(jb)) && beyond_exp_overflow()) {
            match = true;
            ++overflow_unjudged;
          }
        }
        if (std::isfinite(a) && std::isfinite(b)) {
          const double ab = std::fabs(a - b);
          if (!have_abs || ab > r.max_abs_err) { r.max_abs_err = ab; r.max_abs_at = loc; have_abs = true; }
          if (b != 0.0) {
            const double rel = ab / std::fabs(b);
            if (!have_rel || rel > r.max_rel_err) { r.max_rel_err = rel; r.max_rel_at = loc; have_rel = true; }
          }
        }
        if (!match) {
          if (!r.has_mismatch) {
            r.has_mismatch = true;
            r.first_mismatch = loc;
            first_name = element(tb, k.name, static_cast<std::int64_t>(e));
          }
          ++mismatches;
        }
      }
      if (degenerate.empty()) {
        auto degenerate_kind = [](const Tensor& cand, const Tensor& orig) -> const char* {
          const Props pa = props(cand), pb = props(orig, 0x1.0p-10);
          return pa.zeros && !pb.zeros ? "all zeros"
                 : pa.nans && !pb.nans ? "all NaN"
                 : pa.constant && !pb.constant ? "constant" : nullptr;
        };
        const char* what = degenerate_kind(ta, tb);
        // In a typed run, rounding alone can make an output constant, zero or NaN (values that differ by less than
        // an f16 ulp, an underflow, an overflow into inf - inf): a typed degeneracy counts when the two programs'
        // f64 runs on the draw show it too (a candidate that cannot run in f64 keeps it).
        if (what && ro.typed) {
          if (!f64_runs()) return false;
          if (!exact_a_failed) what = degenerate_kind(exact_a.at(k.name), exact.at(k.name));
        }
        // All NaN on a draw near exp's f64 overflow point is the range rule's case for a whole output (an exp that
        // underflowed to 0 and then divided, D/D*D against D): not judged either. An integer or bool output made
        // constant or zero there is judged on the clamped draw, as its elements are.
        if (what && beyond_exp_overflow() && (std::string_view(what) == "all NaN" || !ir::is_float(k.dtype))) {
          clamp = clamp || !ir::is_float(k.dtype);
          what = nullptr;
        }
        if (what)
          degenerate = "candidate output " + k.name + " is " + what + " on " + where + " while the original's is not";
      }
    }
    track(ob);
    return true;
  };
  auto run_on = [&](const TensorMap& in, const ErrLocation& at, TensorMap& ob, TensorMap& oa) -> bool {
    bool clamp = false;
    if (!judge_draw(in, at, ob, oa, clamp)) return false;
    if (!clamp) return true;
    ErrLocation near = at;
    near.clamped = kExpOverflowF64;
    TensorMap cb, ca;
    return judge_draw(clamp_float_inputs(in, kExpOverflowF64), near, cb, ca, clamp);
  };
  auto run_draw = [&](std::uint64_t seed, Distribution dist) -> bool {
    TensorMap in = make_inputs(*A, seed, dist, literals);
    if (opt.fixed) apply_fixed_inputs(in, *opt.fixed);
    ErrLocation at;
    at.seed = seed;
    at.dist = dist;
    TensorMap ob, oa;
    return run_on(in, at, ob, oa);
  };
  for (std::uint64_t seed : opt.seeds)
    for (Distribution dist : opt.dists)
      if (!run_draw(seed, dist)) return *early;
  std::uint64_t next = opt.seeds.empty() ? 0 : *std::max_element(opt.seeds.begin(), opt.seeds.end()) + 1;
  // The further draws (adaptive and cheap) add distribution S to the given ones: its per-buffer sign patterns
  // (all <= 0, mostly >= 0, zero-heavy, one value) undo the masking that leaves those draws' outputs insensitive.
  std::vector<Distribution> further = opt.dists;
  if (opt.skewed_further_draws && std::find(further.begin(), further.end(), Distribution::Skewed) == further.end())
    further.push_back(Distribution::Skewed);
  const std::string with_s = further.size() > opt.dists.size() ? " with S" : "";  // for the message
  std::string added;  // why seeds were added, for the message
  if (degenerate.empty() && !r.has_mismatch && opt.extra_seeds_if_insensitive > 0 && !opt.seeds.empty() &&
      insensitive()) {
    // The extension at most doubles the check's work, or spends kAdaptiveMinBudget statement executions.
    const std::uint64_t per_seed = std::max<std::uint64_t>(1, done_before / draws) * further.size();
    const std::uint64_t affordable = std::max<std::uint64_t>(done_before, kAdaptiveMinBudget) / per_seed;
    const std::uint64_t extra = std::min<std::uint64_t>(opt.extra_seeds_if_insensitive, affordable);
    for (std::uint64_t i = 0; i < extra && !r.has_mismatch && degenerate.empty(); ++i, ++next) {
      for (Distribution dist : further)
        if (!run_draw(next, dist)) return *early;
      ++r.extra_seeds;
    }
    if (r.extra_seeds)
      added = std::to_string(r.extra_seeds) + " added" + with_s + ": an output element took < 3 distinct values";
  }
  if (degenerate.empty() && !r.has_mismatch && opt.extra_seeds_if_cheap > 0 && !opt.seeds.empty()) {
    // Cheap checks draw on, within kCheapCheckBudget statement executions: each further seed with every
    // distribution, untyped and (unless the check is typed already) typed, stopping at the first mismatch.
    const std::uint64_t per_seed =
        std::max<std::uint64_t>(1, done_before / draws) * further.size() * (opt.typed ? 1 : 2);
    const std::uint64_t extra = std::min<std::uint64_t>(opt.extra_seeds_if_cheap, kCheapCheckBudget / per_seed);
    const std::uint32_t before = r.extra_seeds;
    for (std::uint64_t i = 0; i < extra && !r.has_mismatch && degenerate.empty(); ++i, ++next) {
      for (const bool typed : opt.typed ? std::vector<bool>{true} : std::vector<bool>{false, true}) {
        ro.typed = typed;
        for (Distribution dist : further) {
          if (r.has_mismatch || run_draw(next, dist)) continue;
          // An original that cannot run in §8.2 precision on this draw (an f16 overflow into a conversion) gives
          // no verdict here; an untyped check does not become inconclusive because of it.
          if (typed && !opt.typed && early->code == "E502") {
            early.reset();
            continue;
          }
          return *early;
        }
      }
      ro.typed = opt.typed;
      ++r.extra_seeds;
    }
    if (r.extra_seeds > before)
      added += std::string(added.empty() ? "" : "; ") + std::to_string(r.extra_seeds - before) + " added" + with_s +
               ", untyped and typed: a cheap check";
  }
  if (degenerate.empty() && !r.has_mismatch && opt.boundary_pairs_if_cheap > 0 && !opt.seeds.empty() &&
      further.size() > 1) {
    // Boundary draws (EquivOptions::boundary_pairs_if_cheap), within kCheapCheckBudget executions: even pairs
    // untyped, odd ones typed (all typed when the check is).
    // A pair costs at most 6 compared runs and, per located element, 17 bisection runs and 4 compared ones.
    const std::uint64_t per_run = std::max<std::uint64_t>(1, done_before / (2 * draws));
    const std::uint64_t per_pair = per_run * (6 + 2 * kBoundarySitesPerPair * 21);
    const std::uint64_t spent_before = done_before;
    auto within = [&] { return done_before - spent_before < kCheapCheckBudget; };
    const std::size_t nd = further.size();
    for (std::uint32_t i = 0; i < opt.boundary_pairs_if_cheap && !r.has_mismatch && degenerate.empty() &&
                              done_before - spent_before + per_pair <= kCheapCheckBudget;
         ++i) {
      const std::uint64_t seed = next + i;
      ro.typed = opt.typed || i % 2 == 1;
      ErrLocation at;
      at.seed = seed;
      at.dist = further[i % nd];
      at.to = further[(i % nd + 1 + (i / nd) % (nd - 1)) % nd];  // every ordered pair of distributions in turn
      TensorMap x0 = make_inputs(*A, seed, at.dist, literals), x1 = make_inputs(*A, seed, at.to, literals);
      if (opt.fixed) {
        apply_fixed_inputs(x0, *opt.fixed);
        apply_fixed_inputs(x1, *opt.fixed);
      }
      auto point = [&](double t) { return t == 0.0 ? x0 : interpolate_inputs(x0, x1, t, seed); };
      bool skip = false;  // an original that cannot run in §8.2 precision on a typed pair: no verdict from it
      auto compared = [&](double t, TensorMap& b, TensorMap& a) {
        at.t = t;
        if (run_on(t == 1.0 ? x1 : point(t), at, b, a)) return true;
        if (ro.typed && !opt.typed && early->code == "E502") {
          early.reset();
          skip = true;
          return true;
        }
        return false;
      };
      TensorMap ob0, oa0, ob1, oa1, obm, oam;  // original (b) and candidate (a) at t = 0, 1, 1/2
      if (!compared(0.0, ob0, oa0) || (!skip && !compared(1.0, ob1, oa1)) || (!skip && !compared(0.5, obm, oam)))
        return *early;
      if (skip) continue;
      ++r.boundary_pairs;
      for (int side = 0; side < 2 && !r.has_mismatch && degenerate.empty() && !skip; ++side) {
        const Interpreter& prog = side == 0 ? *A : *B;
        const TensorMap &o0 = side == 0 ? ob0 : oa0, &om = side == 0 ? obm : oam;
        const std::vector<ChangingElement> sites = changing_elements(original, o0, side == 0 ? ob1 : oa1, om);
        const std::size_t take = std::min<std::size_t>(sites.size(), kBoundarySitesPerPair);
        for (std::size_t j = 0; j < take && !r.has_mismatch && degenerate.empty() && !skip; ++j) {
          const ChangingElement& c = sites[(i + j * (sites.size() / take)) % sites.size()];
          const auto edge = bisect_edge(prog, ro, point, c, o0, om, done_before, within);
          if (!edge) {
            if (!within()) break;  // out of budget
            continue;              // a point where this program fails to run
          }
          const auto [lo, hi] = *edge;
          for (const double t : {std::max(0.0, lo - (hi - lo)), std::min(1.0, hi + (hi - lo))}) {
            TensorMap pb, pa;
            if (!skip && !compared(t, pb, pa)) return *early;
          }
        }
      }
    }
    ro.typed = opt.typed;
    if (r.boundary_pairs)
      added += std::string(added.empty() ? "" : "; ") + std::to_string(r.boundary_pairs) +
               " boundary pair(s), untyped and typed";
  }
  if (degenerate.empty() && !r.has_mismatch && opt.guided_inputs_if_cheap > 0 && !opt.seeds.empty()) {
    // Guided draws (EquivOptions::guided_inputs_if_cheap; interp/guided.hpp), within opt.guided_budget executions.
    const std::uint64_t spent_before = done_before;
    const std::uint64_t per_draw = 3 * std::max<std::uint64_t>(1, done_before / (2 * draws));  // + an f64 run
    const auto domains = input_domains(*A, opt.fixed.get());
    const std::uint64_t seed = next + opt.boundary_pairs_if_cheap;
    steptp_num::SplitMix64 g{(std::uint64_t{1} << 60) + seed};
    struct Kept {
      TensorMap in;
      std::vector<std::pair<double, double>> operands;  // comparison operands of both programs' runs on it
    };
    std::vector<Kept> corpus;
    std::uint64_t tie_draws = 0;  // mutated draws whose difference vanished under perturb_float_inputs
    CoverageMap seen_b, seen_a;
    Coverage cov_b, cov_a;
    // Both programs on `in`, probed; nullopt when the original cannot run on it (the candidate's failure is left
    // to run_on to report).
    auto probed = [&](const TensorMap& in, const RunOptions& o) -> std::optional<std::pair<TensorMap, TensorMap>> {
      RunOptions p = o;
      std::pair<TensorMap, TensorMap> out;
      try {
        p.coverage = &cov_b;
        out.first = A->run(in, p);
      } catch (const std::exception&) {
        done_before += A->last_steps();
        return std::nullopt;
      }
      done_before += A->last_steps();
      try {
        p.coverage = &cov_a;
        out.second = B->run(in, p);
      } catch (const std::exception&) {
        done_before += B->last_steps();
        out.second.clear();  // the candidate fails where the original runs
      }
      done_before += B->last_steps();
      return out;
    };
    // Both programs on `x`, unprobed, with `o`: do they differ grossly (gross_mismatch), or which one fails?
    enum class Shows { No, Yes, OriginalFails, CandidateFails };
    auto shows = [&](const TensorMap& x, const RunOptions& o) -> Shows {
      TensorMap xb, xa;
      try {
        xb = A->run(x, o);
      } catch (const std::exception&) {
        done_before += A->last_steps();
        return Shows::OriginalFails;
      }
      done_before += A->last_steps();
      try {
        xa = B->run(x, o);
      } catch (const std::exception&) {
        done_before += B->last_steps();
        return Shows::CandidateFails;
      }
      done_before += B->last_steps();
      return gross_mismatch(original, xb, xa, opt.exact) != Gross::No ? Shows::Yes : Shows::No;
    };
    // Runs a draw probed and keeps it when it reached new coverage (returns 1); 0 when not or when the original
    // cannot run on it (a mutation outside its defined behaviour: dropped), or when the draw showed a difference (r
    // then holds the mismatch); -1 when the check failed otherwise (early set). The guided draws are adversarial:
    // a coverage-guided search also finds the cancellations where a legitimate class-R rewrite rounds differently.
    // So a draw is reported (by run_on, which judges it as every draw) only on a gross difference (gross_mismatch),
    // and a typed draw's difference must also show in the untyped run unless it is NaN against a number.
    auto guided = [&](TensorMap in, const ErrLocation& at, bool keep_anyway) -> int {
      auto outs = probed(in, ro);
      if (!outs) return 0;
      const Gross g1 =
          outs->second.empty() ? Gross::Yes : gross_mismatch(original, outs->first, outs->second, opt.exact);
      if (g1 != Gross::No) {
        RunOptions plain = ro;
        plain.typed = false;
        bool report = !ro.typed || g1 == Gross::NaN;
        if (!report) report = shows(in, plain) == Shows::Yes;
        // A mutated draw's difference must survive moving its float inputs by a few f64 ulps, up or down (it is
        // reported when one of the two moved copies shows it too): a tie that the two programs round to either
        // side (input-to-state replacement copies a value one program computes into an input it is compared
        // with) is a class-R effect, not a difference (perturb_float_inputs). Judged where it was found: untyped
        // unless only a typed NaN showed it.
        if (report && at.guided >= 0 && !opt.exact && opt.guided_tie_check) {
          RunOptions where = ro;
          where.typed = ro.typed && g1 == Gross::NaN;
          steptp_num::SplitMix64 pg{(std::uint64_t{3} << 60) + seed * 4096 + static_cast<std::uint64_t>(at.guided)};
          // A copy on which a program fails counts as showing it: no evidence against the difference.
          report = false;
          for (const bool up : {true, false})
            if (shows(perturb_float_inputs(in, domains, literals, up, pg), where) != Shows::No) {
              report = true;
              break;
            }
          if (!report) ++tie_draws;
        }
        if (report) {
          const bool typed = ro.typed;
          // reported where it was confirmed (a typed check stays typed: run_on then judges with its allowance)
          if (g1 != Gross::NaN && !outs->second.empty() && !opt.typed) ro.typed = false;
          TensorMap ob, oa;
          const bool ran = run_on(in, at, ob, oa);
          ro.typed = typed;
          if (!ran) return -1;
          if (r.has_mismatch) return 0;
        }
      }
      if (seen_b.add(cov_b.counts) + seen_a.add(cov_a.counts) == 0 && !keep_anyway) return 0;
      Kept k{std::move(in), std::move(cov_b.operands)};
      k.operands.insert(k.operands.end(), cov_a.operands.begin(), cov_a.operands.end());
      corpus.push_back(std::move(k));
      return 1;
    };
    // The corpus's seed draws are guided draws too: within the budget (a real workload gets none of them, and with
    // an empty corpus no mutated draw either).
    for (std::uint64_t s0 : opt.seeds) {
      for (Distribution dist : further) {
        if (r.has_mismatch || !degenerate.empty() || done_before - spent_before + per_draw > opt.guided_budget) break;
        TensorMap in = make_inputs(*A, s0, dist, literals);
        if (opt.fixed) apply_fixed_inputs(in, *opt.fixed);
        ErrLocation at;
        at.seed = s0;
        at.dist = dist;
        if (guided(std::move(in), at, corpus.empty()) < 0) return *early;
      }
    }
    for (std::uint32_t k = 0; k < opt.guided_inputs_if_cheap && !r.has_mismatch && degenerate.empty() &&
                              !corpus.empty() && done_before - spent_before + per_draw <= opt.guided_budget;
         ++k) {
      // Half the mutations start from the draw kept last (a greybox fuzzer's energy for new entries: a
      // conjunction is met one condition at a time, each step building on the last), half from any kept draw.
      const Kept& parent =
          g.u01() < 0.5 ? corpus.back() : corpus[static_cast<std::size_t>(g.next() % corpus.size())];
      const Kept& donor = corpus[static_cast<std::size_t>(g.next() % corpus.size())];
      TensorMap child = mutate_inputs(parent.in, donor.in, domains, literals, parent.operands, g);
      ro.typed = opt.typed || k % 2 == 1;
      ErrLocation at;
      at.seed = seed;
      at.guided = k;
      const int got = guided(std::move(child), at, false);
      ++r.guided_inputs;
      if (got < 0) return *early;
      r.guided_kept += got;
    }
    ro.typed = opt.typed;
    if (r.guided_inputs)
      added += std::string(added.empty() ? "" : "; ") + std::to_string(r.guided_inputs) + " guided draw(s), " +
               std::to_string(r.guided_kept) + " kept" +
               (tie_draws ? ", " + std::to_string(tie_draws) +
                                " whose difference vanished with the float inputs moved by a few ulps (a rounding tie)"
                          : std::string());
  }
  if (overflow_unjudged)
    added += std::string(added.empty() ? "" : "; ") + std::to_string(overflow_unjudged) +
             " element(s) infinite or NaN in one program only on draws near exp's f64 overflow point, not judged";
  if (typed_flips)
    added += std::string(added.empty() ? "" : "; ") + std::to_string(typed_flips) +
             " integer or bool element(s) flipped by the declared types' rounding only (equal in f64), not judged";
  if (range_flips)
    added += std::string(added.empty() ? "" : "; ") + std::to_string(range_flips) +
             " integer or bool element(s) differing on draws near exp's f64 overflow point, judged with the float "
             "inputs clamped to 2^9";
  if (!degenerate.empty()) return fail("E505", degenerate);
  if (r.has_mismatch) {
    const auto& m = r.first_mismatch;
    const std::string where = draw_label(m) + (m.typed && !opt.typed ? ", typed" : "");
    return fail("E504", std::to_string(mismatches) + " mismatching element(s); first " + first_name + " (flat " +
                            std::to_string(m.index) + ") on " + where + ": candidate " + fmt_num(m.a) +
                            " vs original " + fmt_num(m.b) + "; max abs err " + fmt_num(r.max_abs_err) +
                            ", max rel err " + fmt_num(r.max_rel_err));
  }
  r.equivalent = true;
  r.code.clear();
  std::string dists;
  for (Distribution d : opt.dists) dists += std::string(dists.empty() ? "" : ",") + distribution_name(d);
  if (!added.empty()) added = " (" + added + ")";
  r.message = "equivalent on " + std::to_string(opt.seeds.size() + r.extra_seeds) + " seed(s) x {" + dists + "}" +
              added + "; max abs err " +
              fmt_num(r.max_abs_err) + ", max rel err " + fmt_num(r.max_rel_err);
  return r;
}

}  // namespace steptp::interp
