#include "frontend/workloads.hpp"

#include <cmath>
#include <stdexcept>

#include "frontend/workloads/families.hpp"
#include "interp/splitmix64.hpp"
#include "base/diag.hpp"
#include "ir/parser.hpp"

namespace steptp::frontend {

namespace wl {
std::vector<ir::DType> dt_float() { return {ir::DType::F32, ir::DType::F64, ir::DType::F16, ir::DType::BF16}; }
std::vector<ir::DType> dt_wide() { return {ir::DType::F32, ir::DType::F64}; }

Workload make(std::string name, std::string suite, std::string family, std::vector<ParamSpec> params,
              std::vector<ir::DType> dtypes, BuildFn build, CheckFn check) {
  Workload w;
  w.name = std::move(name);
  w.suite = std::move(suite);
  w.family = std::move(family);
  w.params = std::move(params);
  w.dtypes = std::move(dtypes);
  w.constraint = check ? std::move(check) : CheckFn([](const Params&) { return std::string(); });
  w.emit_text = [build](const Params& p, ir::DType dt, std::vector<ir::KnownBuffer>& known) {
    Graph g(dt);
    build(g, p);
    return g.finish(known);
  };
  return w;
}
}  // namespace wl

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> all = [] {
    std::vector<Workload> v;
    wl::add_matmul(v);
    wl::add_elementwise(v);
    wl::add_reduction(v);
    wl::add_norm(v);
    wl::add_softmax(v);
    wl::add_conv(v);
    wl::add_pool(v);
    wl::add_scan(v);
    wl::add_loss(v);
    wl::add_fused(v);
    wl::add_attention(v);
    wl::add_model_forms(v);
    return v;
  }();
  return all;
}

const Workload* find_workload(std::string_view name) {
  for (const auto& w : workloads())
    if (w.name == name) return &w;
  return nullptr;
}

const Workload& find_workload_or_throw(std::string_view name) {
  if (const Workload* w = find_workload(name)) return *w;
  throw ir::LeirError(Code::E109, "unknown workload (see `steptp workloads list`)", 0, std::string(name));
}

Params default_params(const Workload& w) {
  Params p;
  for (const auto& s : w.params) p[s.name] = s.def;
  return p;
}

Params small_params(const Workload& w) {
  Params p;
  for (const auto& s : w.params) p[s.name] = s.small;
  return p;
}

Params resolve_params(const Workload& w, const Params& given) {
  Params p = default_params(w);
  for (const auto& [k, v] : given) {
    auto it = p.find(k);
    if (it == p.end()) throw std::invalid_argument("workload " + w.name + " has no parameter '" + k + "'");
    it->second = v;
  }
  for (const auto& s : w.params) {
    std::int64_t v = p[s.name];
    if (v < s.lo || v > s.hi)
      throw std::invalid_argument("parameter " + s.name + "=" + std::to_string(v) + " outside [" +
                                  std::to_string(s.lo) + ", " + std::to_string(s.hi) + "] of " + w.name);
  }
  std::string why = w.constraint(p);
  if (!why.empty()) throw std::invalid_argument(w.name + ": " + why);
  return p;
}

ir::Task emit(const Workload& w, const Params& params, ir::DType dtype) {
  bool offered = false;
  for (auto d : w.dtypes) offered = offered || d == dtype;
  if (!offered)
    throw std::invalid_argument("workload " + w.name + " does not offer dtype " + std::string(ir::dtype_name(dtype)));
  Params p = resolve_params(w, params);
  ir::Task t;
  t.workload = w.name;
  t.suite = w.suite;
  std::string text = w.emit_text(p, dtype, t.known);
  t.program = ir::parse_program(text);
  return t;
}

namespace {
using steptp_num::SplitMix64;  // the §11 generator (interp/splitmix64.hpp)
std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}
std::int64_t draw(SplitMix64& r, const ParamSpec& s) {
  if (s.hi <= s.lo) return s.lo;
  if (s.lo >= 1 && s.hi / s.lo >= 16) {
    double a = std::log2(static_cast<double>(s.lo)), b = std::log2(static_cast<double>(s.hi) + 1.0);
    auto v = static_cast<std::int64_t>(std::floor(std::exp2(a + (b - a) * r.u01())));
    return std::min(std::max(v, s.lo), s.hi);
  }
  return s.lo + static_cast<std::int64_t>(r.u01() * static_cast<double>(s.hi - s.lo + 1));
}
}  // namespace

std::vector<Params> sample_params(const Workload& w, int n, std::uint64_t seed) {
  std::vector<Params> out;
  SplitMix64 rng{seed ^ fnv1a(w.name)};
  for (int i = 0; i < n; ++i) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      Params p;
      for (const auto& s : w.params) p[s.name] = draw(rng, s);
      if (!w.constraint(p).empty()) continue;
      try {
        std::vector<ir::KnownBuffer> known;
        (void)w.emit_text(p, w.dtypes.front(), known);
      } catch (const std::invalid_argument&) {
        continue;
      }
      out.push_back(std::move(p));
      break;
    }
  }
  return out;
}

}  // namespace steptp::frontend
