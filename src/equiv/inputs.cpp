// Deterministic input generation for equivalence checking (LEIR.md §11 step 2).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "equiv/guided.hpp"
#include "equiv/inputs.hpp"
#include "interp/numeric.hpp"
#include "interp/splitmix64.hpp"
#include "ir/validate.hpp"

namespace steptp::equiv {
namespace {

using steptp_num::SplitMix64;

using ShapeOf = std::map<std::string, std::vector<std::int64_t>>;

/// Records, for every buffer read directly inside a subscript entry, the extent of the dimension it indexes.
void record_direct(const ir::Expr& e, std::int64_t extent, std::map<std::string, std::int64_t>& n) {
  if (e.kind == ir::ExprKind::Ref) {
    auto it = n.find(e.text);
    if (it == n.end() || extent < it->second) n[e.text] = extent;
    return;  // its own subscript is scanned as a reference of its own
  }
  for (const auto& c : e.args) record_direct(c, extent, n);
}
void scan(const ir::Expr& e, const ShapeOf& shapes, std::map<std::string, std::int64_t>& n) {
  if (e.kind == ir::ExprKind::Ref) {
    auto it = shapes.find(e.text);
    for (std::size_t d = 0; d < e.args.size(); ++d) {
      if (it != shapes.end() && d < it->second.size()) record_direct(e.args[d], it->second[d], n);
    }
  }
  for (const auto& c : e.args) scan(c, shapes, n);
}

/// Smallest extent that each gather-index buffer indexes.
std::map<std::string, std::int64_t> gather_extents(const ir::Task& t, const ShapeOf& shapes) {
  std::map<std::string, std::int64_t> n;
  ir::for_each_stmt(t.program, [&](const ir::Stmt& s, auto&, std::size_t) {
    scan(s.lhs, shapes, n);
    scan(s.rhs, shapes, n);
  });
  return n;
}

double to_dtype(double v, ir::DType t) {
  switch (t) {
    case ir::DType::F32: return steptp_num::round_f32(v);
    case ir::DType::F16: return steptp_num::round_f16(v);
    case ir::DType::BF16: return steptp_num::round_bf16(v);
    case ir::DType::F64: return v;
    case ir::DType::Bool: return v != 0.0;
    default: break;
  }
  // integers: the generated values are small integers; wrap them to the type (§8.3)
  const std::int64_t w = steptp_num::wrap_int(static_cast<std::int64_t>(v), ir::dtype_bits(t), ir::is_signed_int(t));
  return t == ir::DType::U64 ? static_cast<double>(static_cast<std::uint64_t>(w)) : static_cast<double>(w);
}

std::uint64_t stream_seed(std::uint64_t seed, Distribution dist) {
  switch (dist) {
    case Distribution::Normal: return 2 * seed;
    case Distribution::Uniform: return 2 * seed + 1;
    case Distribution::Wide: return (std::uint64_t{1} << 63) + seed;
    case Distribution::Literal: return (std::uint64_t{1} << 62) + seed;
    case Distribution::Skewed: return (std::uint64_t{1} << 61) + seed;
  }
  return seed;
}

double standard_normal(SplitMix64& g) { return g.normal(); }

/// A magnitude of `set`, or with probability 1/3 a combination c/d (integers: floor), |c-d| or c+d of two, so that a
/// threshold reached through an affine expression is met too (`min(4*A,100)` changed to 101 differs only for A in
/// (25, 25.25]: 101/4 is drawn).
double literal_magnitude(SplitMix64& g, bool is_float, const std::vector<double>& set) {
  auto one = [&] { return set[static_cast<std::size_t>(g.u01() * static_cast<double>(set.size())) % set.size()]; };
  double c = one();
  if (g.u01() < 1.0 / 3.0) {
    const double d = one(), u = g.u01();
    if (u < 1.0 / 3.0) {
      if (d != 0.0) c = is_float ? c / d : std::floor(c / d);
    } else {
      c = u < 2.0 / 3.0 ? std::fabs(c - d) : c + d;
    }
  }
  return c;
}

/// One element of distribution K: `lits` for floats, `ints` (integral literals) for integers.
double literal_draw(SplitMix64& g, bool is_float, const std::vector<double>& lits, const std::vector<double>& ints) {
  const std::vector<double>& set = is_float ? lits : ints;
  if (g.u01() < 0.25 || set.empty()) return is_float ? standard_normal(g) : std::floor(9.0 * g.u01()) - 4.0;
  const double c = literal_magnitude(g, is_float, set);
  const double sign = g.u01() < 0.5 ? -1.0 : 1.0;
  const int nudge = static_cast<int>(std::floor(3.0 * g.u01())) - 1;  // -1, 0, 1
  if (is_float && c == 0.0) return 0.0;  // +0 only: a -0 input makes max/min order visible in the sign of zero
  return is_float ? sign * c * (1.0 + nudge * 0x1.0p-5) : sign * c + nudge;
}

/// The per-tensor shape of distribution S: a sign pattern and a magnitude scale, drawn once per input buffer.
struct SkewMode {
  int sign = 0;      // 0 zero-heavy, 1 all <= 0, 2 all >= 0, 3 mostly <= 0, 4 mostly >= 0, 5 one value for all
  int scale = 0;     // 0 |N|, 1 log-uniform 2^-4..2^6, 2 |N| * 2^-10, 3 |N| * 2^10 (integers: [0,4], [0,16], 0, [0,64])
  double constant = 0;
};

SkewMode skew_mode(SplitMix64& g) {
  SkewMode m;
  m.sign = static_cast<int>(std::floor(6.0 * g.u01()));
  m.scale = static_cast<int>(std::floor(4.0 * g.u01()));
  return m;
}

double skew_magnitude(SplitMix64& g, const SkewMode& m, bool is_float) {
  if (!is_float) {
    static const double kMax[] = {5.0, 17.0, 1.0, 65.0};
    return std::floor(kMax[m.scale] * g.u01());
  }
  switch (m.scale) {
    case 1: return std::exp2(10.0 * g.u01() - 4.0);
    case 2: return std::fabs(standard_normal(g)) * 0x1.0p-10;
    case 3: return std::fabs(standard_normal(g)) * 0x1.0p10;
    default: return std::fabs(standard_normal(g));
  }
}

/// One element of distribution S (see Distribution): bools follow the sign pattern too (all false, all true, ...).
double skewed_draw(SplitMix64& g, const SkewMode& m, ir::DType t) {
  const bool is_float = ir::is_float(t);
  if (t == ir::DType::Bool) {
    const double p_true[] = {0.5, 0.0, 1.0, 0.125, 0.875, m.constant};
    return g.u01() < p_true[m.sign] ? 1.0 : 0.0;
  }
  double v = m.constant;
  if (m.sign != 5) {
    const double mag = skew_magnitude(g, m, is_float);
    switch (m.sign) {
      case 0: v = g.u01() < 0.5 ? 0.0 : (g.u01() < 0.5 ? -mag : mag); break;
      case 1: v = -mag; break;
      case 2: v = mag; break;
      case 3: v = g.u01() < 0.125 ? mag : -mag; break;
      default: v = g.u01() < 0.125 ? -mag : mag; break;
    }
  }
  return v == 0.0 ? 0.0 : v;  // +0 only, as in K
}

TensorMap generate(const ir::Task& task, const ShapeOf& shapes, std::uint64_t seed, Distribution dist,
                   const std::vector<double>& literals) {
  const auto gather = gather_extents(task, shapes);
  SplitMix64 g{stream_seed(seed, dist)};
  std::vector<double> lits, ints;
  if (dist == Distribution::Literal) {
    lits = literals.empty() ? literal_magnitudes(task.program) : literals;
    for (double c : lits)
      if (c == std::floor(c) && c < 1e9) ints.push_back(c);
  }
  TensorMap out;
  for (const auto& k : task.known) {
    if (k.role == ir::Role::Output) continue;
    Tensor t;
    t.dtype = k.dtype;
    t.shape = k.shape;
    const auto n = static_cast<std::size_t>(t.numel());
    t.data.resize(n);
    auto gi = gather.find(k.name);
    const bool is_gather = ir::is_int(k.dtype) && gi != gather.end();
    SkewMode skew;
    if (dist == Distribution::Skewed) {
      skew = skew_mode(g);
      if (k.dtype == ir::DType::Bool) skew.constant = g.u01() < 0.5 ? 1.0 : 0.0;
      else if (skew.sign == 5)
        skew.constant = (g.u01() < 0.5 ? -1.0 : 1.0) * skew_magnitude(g, skew, ir::is_float(k.dtype));
    }
    for (std::size_t e = 0; e < n; ++e) {
      double v = 0;
      if (ir::is_float(k.dtype)) {
        if (dist == Distribution::Uniform) {
          v = 0.5 + g.u01();
        } else if (dist == Distribution::Wide) {
          const double u1 = g.u01(), u2 = g.u01();
          v = (u1 < 0.5 ? -1.0 : 1.0) * std::exp2(10.0 * u2 - 4.0);
        } else if (dist == Distribution::Literal) {
          v = literal_draw(g, true, lits, ints);
        } else if (dist == Distribution::Skewed) {
          v = skewed_draw(g, skew, k.dtype);
        } else {
          v = standard_normal(g);
        }
      } else if (k.dtype == ir::DType::Bool) {
        v = dist == Distribution::Skewed ? skewed_draw(g, skew, k.dtype) : (g.u01() < 0.5 ? 1.0 : 0.0);
      } else if (is_gather) {
        v = std::floor(g.u01() * static_cast<double>(gi->second));
      } else if (dist == Distribution::Normal) {
        v = std::floor(9.0 * g.u01()) - 4.0;
      } else if (dist == Distribution::Wide) {
        v = std::floor(33.0 * g.u01()) - 16.0;
      } else if (dist == Distribution::Literal) {
        v = literal_draw(g, false, lits, ints);
      } else if (dist == Distribution::Skewed) {
        v = skewed_draw(g, skew, k.dtype);
      } else {
        v = 1.0 + std::floor(4.0 * g.u01());
      }
      // A declared range (STRATEGIES.md §4) is respected: the magnitude is kept, a zero becomes 1 for "positive".
      if (k.range != ir::ValueRange::Any && k.dtype != ir::DType::Bool) {
        v = std::fabs(v);
        if (k.range == ir::ValueRange::Positive && v == 0.0) v = 1.0;
      }
      t.data[e] = to_dtype(v, k.dtype);
    }
    out.emplace(k.name, std::move(t));
  }
  return out;
}

}  // namespace

const char* distribution_name(Distribution d) {
  switch (d) {
    case Distribution::Normal: return "N";
    case Distribution::Uniform: return "U";
    case Distribution::Wide: return "W";
    case Distribution::Literal: return "K";
    case Distribution::Skewed: return "S";
  }
  return "?";
}

std::vector<Distribution> parse_distributions(std::string_view letters) {
  std::vector<Distribution> v;
  for (char c : letters) {
    switch (c) {
      case 'N': v.push_back(Distribution::Normal); break;
      case 'U': v.push_back(Distribution::Uniform); break;
      case 'W': v.push_back(Distribution::Wide); break;
      case 'K': v.push_back(Distribution::Literal); break;
      case 'S': v.push_back(Distribution::Skewed); break;
      default: throw std::invalid_argument("'" + std::string(1, c) + "' is not a distribution (N, U, W, K or S)");
    }
    if (std::find(v.begin(), v.end() - 1, v.back()) != v.end() - 1)
      throw std::invalid_argument("'" + std::string(1, c) + "' is given twice");
  }
  if (v.empty()) throw std::invalid_argument("no distribution given (letters N, U, W, K, S)");
  return v;
}

std::vector<double> literal_magnitudes(const ir::Program& p) {
  std::vector<double> v{0.0, 1.0};
  auto add = [&](const ir::Expr& e) {
    ir::visit_expr(e, [&](const ir::Expr& x) {
      if (x.kind == ir::ExprKind::IntLit) v.push_back(std::fabs(static_cast<double>(x.ival)));
      else if (x.kind == ir::ExprKind::FloatLit && std::isfinite(x.fval)) v.push_back(std::fabs(x.fval));
    });
  };
  ir::for_each_stmt(p, [&](const ir::Stmt& s, auto&, std::size_t) {
    add(s.lhs);
    add(s.rhs);
  });
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TensorMap make_inputs(const Interpreter& interp, std::uint64_t seed, Distribution dist,
                      const std::vector<double>& literals) {
  ShapeOf shapes;
  for (const auto& b : interp.analysis().buffers) shapes[b.name] = b.shape;
  return generate(interp.task(), shapes, seed, dist, literals);
}

TensorMap make_inputs(const ir::Task& task, std::uint64_t seed, Distribution dist,
                      const std::vector<double>& literals) {
  ShapeOf shapes;
  for (const auto& k : task.known) shapes[k.name] = k.shape;
  try {
    ir::Task copy = task;
    const ir::Analysis a = ir::analyze(copy);
    for (const auto& b : a.buffers) shapes.emplace(b.name, b.shape);
  } catch (const std::exception&) {
    // keep the known shapes only
  }
  return generate(task, shapes, seed, dist, literals);
}

TensorMap interpolate_inputs(const TensorMap& from, const TensorMap& to, double t, std::uint64_t salt) {
  TensorMap out;
  SplitMix64 g{salt};
  for (const auto& [name, x0] : from) {
    auto it = to.find(name);
    if (it == to.end()) throw std::invalid_argument("interpolate_inputs: " + name + " is missing from the second draw");
    const Tensor& x1 = it->second;
    if (x1.dtype != x0.dtype || x1.data.size() != x0.data.size())
      throw std::invalid_argument("interpolate_inputs: " + name + " differs in dtype or size between the two draws");
    Tensor x = x0;
    for (std::size_t e = 0; e < x.data.size(); ++e) {
      const double a = x0.data[e], b = x1.data[e];
      const double u = g.u01();  // drawn for every element, so the switch points do not depend on t
      double v;
      if (x.dtype == ir::DType::Bool || !std::isfinite(a) || !std::isfinite(b)) {
        v = t < u ? a : b;
      } else {
        v = (1.0 - t) * a + t * b;  // exactly a at t = 0 and b at t = 1
        if (!ir::is_float(x.dtype)) v = std::round(v);
        v = to_dtype(v, x.dtype);  // rounding is monotonic: between a and b, so a declared range still holds
      }
      x.data[e] = v == 0.0 ? 0.0 : v;  // +0 only, as in every distribution
    }
    out.emplace(name, std::move(x));
  }
  return out;
}

std::map<std::string, InputDomain> input_domains(const Interpreter& interp, const TensorMap* fixed) {
  ShapeOf shapes;
  for (const auto& b : interp.analysis().buffers) shapes[b.name] = b.shape;
  const auto gather = gather_extents(interp.task(), shapes);
  std::map<std::string, InputDomain> out;
  for (const auto& k : interp.task().known) {
    if (k.role == ir::Role::Output || (fixed && fixed->count(k.name))) continue;
    InputDomain d;
    d.dtype = k.dtype;
    d.range = k.range;
    auto gi = gather.find(k.name);
    if (ir::is_int(k.dtype) && gi != gather.end()) d.gather = std::max<std::int64_t>(1, gi->second);
    out.emplace(k.name, d);
  }
  return out;
}

double conform_input(double v, const InputDomain& d) {
  if (!ir::is_float(d.dtype) && d.dtype != ir::DType::Bool) {
    if (!std::isfinite(v)) v = 0.0;
    v = std::clamp(std::trunc(v), -0x1.0p62, 0x1.0p62);  // to_dtype casts to i64 before wrapping
  }
  if (ir::is_float(d.dtype)) v = std::clamp(v, -kMaxGuidedMagnitude, kMaxGuidedMagnitude);  // NaN stays NaN
  if (d.gather > 0) {
    const auto n = static_cast<double>(d.gather);
    v = v - n * std::floor(v / n);
  }
  if (d.range != ir::ValueRange::Any && d.dtype != ir::DType::Bool) {
    v = std::fabs(v);
    if (d.range == ir::ValueRange::Positive && v == 0.0) v = 1.0;
  }
  v = to_dtype(v, d.dtype);
  return v == 0.0 ? 0.0 : v;
}

void check_fixed_inputs(const ir::Task& task, const TensorMap& fixed) {
  for (const auto& [name, t] : fixed) {
    auto it = std::find_if(task.known.begin(), task.known.end(), [&](const ir::KnownBuffer& k) { return k.name == name; });
    auto bad = [&](const std::string& what) { throw std::invalid_argument("params: " + name + ": " + what); };
    if (it == task.known.end()) bad("not a known buffer of the task");
    if (it->role == ir::Role::Output) bad("an output buffer cannot be given values");
    if (it->dtype != t.dtype)
      bad("dtype " + std::string(ir::dtype_name(t.dtype)) + " but the task declares " + std::string(ir::dtype_name(it->dtype)));
    if (it->shape != t.shape)
      bad(fmt::format("shape [{}] but the task declares [{}]", fmt::join(t.shape, ","), fmt::join(it->shape, ",")));
    if (static_cast<std::int64_t>(t.data.size()) != t.numel()) bad("element count does not match its shape");
  }
}

void apply_fixed_inputs(TensorMap& inputs, const TensorMap& fixed) {
  for (const auto& [name, t] : fixed) {
    auto it = inputs.find(name);
    if (it == inputs.end()) throw std::invalid_argument("params: " + name + ": not an input of the run");
    it->second = t;
  }
}

}  // namespace steptp::equiv
