#include "step/equiv.hpp"
#include "base/error_codes.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/hash.hpp"
#include "equiv/compare.hpp"
#include "equiv/equivalence.hpp"
#include "equiv/options.hpp"
#include "base/diag.hpp"
#include "ir/limits.hpp"
#include "runtime/measure.hpp"

namespace steptp::dataset {

// DATASET.md §2.5 uses the per-dtype table of LEIR.md §11; one definition lives in equiv/compare.hpp.
std::pair<double, double> dataset_tolerance(ir::DType t) { return equiv::element_tolerance(t); }

std::int64_t statement_instances(const ir::Task& t) {
  const std::uint64_t n = ir::statement_executions(t.program);  // saturating: hostile extents cannot overflow
  return n > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(n);
}

namespace {

/// The evidence's name of a draw's distribution: S5's "normal" and "uniform01", else the LEIR.md §11 letter.
std::string draw_name(equiv::Distribution d) {
  if (d == equiv::Distribution::Normal) return "normal";
  if (d == equiv::Distribution::Uniform) return "uniform01";
  return equiv::distribution_name(d);
}

interp::TensorMap run_one(const ir::Task& t, const interp::TensorMap& in, bool use_interp, const interp::Interpreter* ip) {
  if (use_interp) return ip->run(in);
  return runtime::run_compiled(t, in);
}

}  // namespace

Reference make_reference(const ir::Task& t, const std::string& tk, const EquivConfig& cfg,
                         const interp::TensorMap* fixed) {
  Reference r;
  if (fixed) {
    equiv::check_fixed_inputs(t, *fixed);
    r.stored_weights = fixed->size();
  }
  r.interpreter = statement_instances(t) <= cfg.interp_max_ops;
  std::unique_ptr<interp::Interpreter> ip;
  if (r.interpreter) ip = std::make_unique<interp::Interpreter>(t);
  const int count = cfg.dists.empty() ? cfg.draws + 1 : static_cast<int>(cfg.dists.size());
  for (int d = 0; d < count; ++d) {
    std::uint64_t seed = derive(cfg.master_seed, cfg.stream, {tk, std::to_string(d)});
    auto dist = !cfg.dists.empty()  ? cfg.dists[static_cast<std::size_t>(d)]
                : d < cfg.draws     ? equiv::Distribution::Normal
                                    : equiv::Distribution::Uniform;
    r.seeds.push_back(seed);
    r.dists.push_back(dist);
    r.inputs.push_back(equiv::make_inputs(t, seed, dist));
    if (fixed) equiv::apply_fixed_inputs(r.inputs.back(), *fixed);
    r.outputs.push_back(run_one(t, r.inputs.back(), r.interpreter, ip.get()));
  }
  return r;
}

bool is_degenerate(const Reference& ref) {
  if (ref.outputs.empty()) return true;
  for (const auto& [name, first_t] : ref.outputs[0]) {
    bool small = true, constant = true;
    const double first = first_t.data.empty() ? 0.0 : first_t.data[0];
    for (const auto& outs : ref.outputs) {
      auto it = outs.find(name);
      if (it == outs.end()) continue;
      for (double x : it->second.data) {
        if (!(std::fabs(x) < 1e-6)) small = false;
        if (!(x == first || (std::isnan(x) && std::isnan(first)))) constant = false;
      }
    }
    if (!small && !constant) return false;
  }
  return true;
}

EquivOutcome check_against(const ir::Task& after, const Reference& ref, char cls, const EquivConfig& cfg) {
  EquivOutcome o;
  bool bitwise = cls == 'E';
  double rtol = 0, atol = 0;
  for (const auto& k : after.known)
    if (k.role == ir::Role::Output) {
      auto [r, a] = dataset_tolerance(k.dtype);
      rtol = std::max(rtol, r);
      atol = std::max(atol, a);
    }
  if (bitwise) rtol = atol = 0;
  ojson draws = ojson::array();
  for (std::size_t d = 0; d < ref.seeds.size(); ++d)
    draws.push_back({{"seed", hex16(ref.seeds[d])},
                     {"dist", draw_name(ref.dists[d])}});
  bool use_interp = statement_instances(after) <= cfg.interp_max_ops;
  std::unique_ptr<interp::Interpreter> ip;
  double max_abs = 0, max_rel = 0;
  std::int64_t elements = 0;
  try {
    if (use_interp) ip = std::make_unique<interp::Interpreter>(after);
    for (std::size_t d = 0; d < ref.inputs.size(); ++d) {
      auto out = run_one(after, ref.inputs[d], use_interp, ip.get());
      std::int64_t el = 0;
      for (const auto& [name, y] : ref.outputs[d]) {
        auto it = out.find(name);
        if (it == out.end() || it->second.data.size() != y.data.size()) {
          o.reason = "not_equivalent";
          o.detail = "output " + name + " missing or resized";
          return o;
        }
        const auto& x = it->second.data;
        double s = 1;
        for (double v : y.data)
          if (std::isfinite(v)) s = std::max(s, std::fabs(v));
        for (std::size_t i = 0; i < x.size(); ++i) {
          double a = x[i], b = y.data[i];
          bool fa = std::isfinite(a), fb = std::isfinite(b);
          if (!fa || !fb) {
            bool same = (std::isnan(a) && std::isnan(b)) || a == b;
            if (!same) {
              o.reason = "nan_mismatch";
              o.detail = name + "[" + std::to_string(i) + "]";
              return o;
            }
            continue;
          }
          double diff = std::fabs(a - b);
          if (diff != 0) {  // most elements of an equivalent answer agree exactly: no division for them
            max_abs = std::max(max_abs, diff);
            max_rel = std::max(max_rel, diff / std::max(std::fabs(b), 1e-30));
          }
          bool pass = bitwise ? std::memcmp(&a, &b, sizeof a) == 0 || (a == 0 && b == 0 && diff == 0)
                              : diff <= atol * s + rtol * std::fabs(b);
          if (bitwise && a == b && std::signbit(a) != std::signbit(b)) pass = false;
          if (!pass) {
            o.reason = "not_equivalent";
            o.detail = name + "[" + std::to_string(i) + "]: " + std::to_string(a) + " vs " + std::to_string(b);
            return o;
          }
        }
        el += std::int64_t(x.size());
      }
      elements = el;
    }
  } catch (const ir::LeirError& e) {
    o.reason = steptp::info(e.id()).family == CodeFamily::LeirRun ? "runtime_crash" : "resolve_error";
    o.detail = e.diag().headline();
    return o;
  } catch (const std::exception& e) {
    std::string w = e.what();
    o.reason = w.find("timeout") != std::string::npos ? "timeout" : "runtime_crash";
    o.detail = w.substr(0, 200);
    return o;
  }
  o.ok = true;
  o.evidence = {{"mode", bitwise ? "bitwise" : "tolerance"}, {"draws", draws}, {"elements", elements},
                {"max_abs_err", max_abs}, {"max_rel_err", max_rel}, {"rtol", rtol}, {"atol", atol},
                {"interpreter", use_interp && ref.interpreter},
                {"method", use_interp && ref.interpreter     ? "interpreter"
                           : !use_interp && !ref.interpreter ? "compiled_c"
                                                             : "interpreter_vs_compiled_c"}};
  if (ref.stored_weights) o.evidence["stored_weights"] = ref.stored_weights;
  return o;
}

EquivOutcome check_as_cli(const ir::Task& before, const ir::Task& after) {
  EquivOutcome o;
  const equiv::Result r = equiv::check_equivalence(before, after, equiv::cli_options());
  o.evidence = ojson::parse(r.to_json());
  if (r.equivalent) {
    o.ok = true;
    return o;
  }
  o.reason = r.code == code_str(Code::E503) ? "runtime_crash" : "not_equivalent";
  o.detail = "steptp equiv: " + r.code + ": " + r.message;
  return o;
}

}  // namespace steptp::dataset
