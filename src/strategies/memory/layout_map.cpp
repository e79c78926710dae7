#include "strategies/memory/layout_map.hpp"

#include <map>

#include "ir/printer.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::memory {
namespace {

std::uint64_t factorial(std::size_t n) {
  std::uint64_t f = 1;
  for (std::size_t i = 2; i <= n; ++i) f = f > UINT64_MAX / i ? UINT64_MAX : f * i;
  return f;
}

struct Space {
  std::uint64_t transposes = 0, flattens = 0, merges = 0;
  std::vector<std::pair<std::size_t, std::int64_t>> splits;  // (j, f1)
  std::uint64_t size() const { return transposes + flattens + merges + splits.size(); }
};

Space space_of(const std::vector<std::int64_t>& ext) {
  Space s;
  const std::size_t k = ext.size();
  if (k >= 2) {
    s.transposes = factorial(k) - 1;
    s.flattens = 1;
  }
  if (k >= 3) s.merges = k - 1;
  for (std::size_t j = 0; j < k; ++j)
    for (std::int64_t f : proper_divisors(ext[j])) s.splits.emplace_back(j, f);
  return s;
}

Params params_at(const Space& s, std::uint64_t idx) {
  if (idx < s.transposes) return {Param{"variant", "transpose"}, Param{"detail", static_cast<std::int64_t>(idx + 1)}};
  idx -= s.transposes;
  if (idx < s.flattens) return {Param{"variant", "flatten"}};
  idx -= s.flattens;
  if (idx < s.merges) return {Param{"variant", "merge"}, Param{"detail", static_cast<std::int64_t>(idx)}};
  idx -= s.merges;
  const auto& [j, f] = s.splits.at(idx);
  return {Param{"variant", "split"}, Param{"detail", nlohmann::json::array({j, f})}};
}

ir::Expr times(ir::Expr e, std::int64_t c) {
  if (c == 1) return e;
  return ir::make_binary(ir::BinOp::Mul, std::move(e), ir::make_int(c));
}

}  // namespace

std::vector<std::size_t> permutation_at(std::size_t n, std::uint64_t k) {
  std::vector<std::size_t> rest(n), out;
  for (std::size_t i = 0; i < n; ++i) rest[i] = i;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t f = factorial(n - 1 - i);
    const std::size_t d = static_cast<std::size_t>(k / f);
    k %= f;
    out.push_back(rest.at(d));
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(d));
  }
  return out;
}

ParamSpace layout_params(const std::vector<std::int64_t>& extents) {
  auto s = std::make_shared<Space>(space_of(extents));
  ParamSpace ps;
  ps.count = s->size();
  ps.gen = [s](std::uint64_t k) { return params_at(*s, k); };
  return ps;
}

LayoutMap layout_from_params(const Params& ps, const std::vector<std::int64_t>& extents) {
  // Membership in layout_params(extents), checked per variant without walking the space (params_at's tuples).
  const std::size_t k = extents.size();
  bool found = false;
  LayoutMap m;
  Candidate tmp;
  tmp.params = ps;
  m.variant = param_str(tmp, "variant");
  if (m.variant == "transpose") {
    const std::int64_t d = param_int(tmp, "detail");
    if (ps.size() == 2 && k >= 2 && d >= 1 && static_cast<std::uint64_t>(d) < factorial(k)) {
      m.perm = permutation_at(k, static_cast<std::uint64_t>(d));
      found = true;
    }
  } else if (m.variant == "flatten") {
    found = ps.size() == 1 && k >= 2;
  } else if (m.variant == "merge") {
    const std::int64_t j = param_int(tmp, "detail");
    found = ps.size() == 2 && k >= 3 && j >= 0 && static_cast<std::size_t>(j) + 1 < k;
    if (found) m.j = static_cast<std::size_t>(j);
  } else if (m.variant == "split" && ps.size() == 2 && ps[1].name == "detail") {
    const auto& d = ps[1].value;
    if (d.is_array() && d.size() == 2 && d[0].is_number_unsigned() && d[1].is_number_integer()) {
      const auto j = d[0].get<std::size_t>();
      const auto f = d[1].get<std::int64_t>();
      found = j < k && f > 1 && f < extents[j] && extents[j] % f == 0;
      if (found) m.j = j, m.f1 = f;
    }
  }
  if (!found) throw_bad_params("not a layout map of entries with these extents");
  return m;
}

std::vector<ir::Expr> apply_layout(const LayoutMap& m, const std::vector<ir::Expr>& e,
                                   const std::vector<std::int64_t>& ext) {
  std::vector<ir::Expr> out;
  if (m.variant == "transpose") {
    for (std::size_t i : m.perm) out.push_back(e[i]);
  } else if (m.variant == "flatten") {
    std::int64_t stride = 1;
    std::vector<std::int64_t> strides(e.size());
    for (std::size_t j = e.size(); j-- > 0;) {
      strides[j] = stride;
      stride *= ext[j];
    }
    ir::Expr acc = times(e[0], strides[0]);
    for (std::size_t j = 1; j < e.size(); ++j)
      acc = ir::make_binary(ir::BinOp::Add, std::move(acc), times(e[j], strides[j]));
    out.push_back(std::move(acc));
  } else if (m.variant == "merge") {
    for (std::size_t j = 0; j < e.size(); ++j) {
      if (j == m.j) {
        out.push_back(ir::make_binary(ir::BinOp::Add, times(e[j], ext[j + 1]), e[j + 1]));
        ++j;
      } else {
        out.push_back(e[j]);
      }
    }
  } else {  // split
    for (std::size_t j = 0; j < e.size(); ++j) {
      if (j == m.j) {
        out.push_back(ir::make_binary(ir::BinOp::FloorDiv, e[j], ir::make_int(m.f1)));
        out.push_back(ir::make_binary(ir::BinOp::Mod, e[j], ir::make_int(m.f1)));
      } else {
        out.push_back(e[j]);
      }
    }
  }
  return out;
}

std::vector<std::int64_t> layout_extents(const LayoutMap& m, const std::vector<std::int64_t>& ext) {
  std::vector<std::int64_t> out;
  if (m.variant == "transpose") {
    for (std::size_t i : m.perm) out.push_back(ext[i]);
  } else if (m.variant == "flatten") {
    std::int64_t n = 1;
    for (auto x : ext) n *= x;
    out.push_back(n);
  } else if (m.variant == "merge") {
    for (std::size_t j = 0; j < ext.size(); ++j) {
      if (j == m.j) {
        out.push_back(ext[j] * ext[j + 1]);
        ++j;
      } else {
        out.push_back(ext[j]);
      }
    }
  } else {
    for (std::size_t j = 0; j < ext.size(); ++j) {
      if (j == m.j) {
        out.push_back(ext[j] / m.f1);
        out.push_back(m.f1);
      } else {
        out.push_back(ext[j]);
      }
    }
  }
  return out;
}

nlohmann::json layout_json(const LayoutMap& m, const std::vector<ir::Expr>& before,
                           const std::vector<ir::Expr>& after) {
  nlohmann::json j = {{"variant", m.variant}};
  if (m.variant == "transpose") j["permutation"] = m.perm;
  if (m.variant == "merge" || m.variant == "split") j["j"] = m.j;
  if (m.variant == "split") j["f1"] = m.f1;
  nlohmann::json b = nlohmann::json::array(), a = nlohmann::json::array();
  for (const auto& e : before) b.push_back(ir::print_expr(e));
  for (const auto& e : after) a.push_back(ir::print_expr(e));
  j["entries_before"] = b;
  j["entries_after"] = a;
  return j;
}

std::vector<AccessRanges> buffer_access_ranges(const ir::Program& p, const std::string& buffer) {
  // Memoised per thread (the last 256 (program, buffer) pairs): the sites of one program are re-derived for every
  // candidate applied to it, and a non-affine entry's range is found by enumerating its points (ir::index_range).
  thread_local std::map<std::string, std::vector<AccessRanges>> memo;
  std::string key = buffer + '\x1f' + ir::print_program(p);
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  std::vector<AccessRanges> out;
  for (const auto& sc : analysis::collect_stmts(p)) {
    const ir::LoopBox box = ir::make_loop_box(sc.loops);
    for (const auto& a : analysis::stmt_accesses(*sc.stmt)) {
      if (a.buffer() != buffer) continue;
      AccessRanges r;
      r.write = a.write;
      r.guarded = a.lazy;
      for (const auto& e : a.ref->args) r.entries.push_back(ir::index_range(e, box));
      out.push_back(std::move(r));
    }
  }
  if (memo.size() >= 256) memo.clear();
  memo.emplace(std::move(key), out);
  return out;
}

std::vector<BufferAccess> buffer_accesses(const ir::Program& p, const std::string& buffer) {
  std::vector<BufferAccess> out;
  for (const auto& sc : analysis::collect_stmts(p)) {
    bool any = false;
    for (const auto& a : analysis::stmt_accesses(*sc.stmt)) {
      if (a.buffer() != buffer) continue;
      if (!any) out.reserve(out.size() + 2);
      any = true;
      out.push_back(BufferAccess{a.ref, ir::make_loop_box(sc.loops), a.write, a.lazy});
    }
  }
  return out;
}

std::vector<AccessRanges> mapped_access_ranges(const std::vector<BufferAccess>& acc, const LayoutMap& m,
                                               const std::vector<std::int64_t>& extents) {
  std::vector<AccessRanges> out;
  out.reserve(acc.size());
  for (const auto& a : acc) {
    AccessRanges r;
    r.write = a.write;
    r.guarded = a.guarded;
    for (const auto& e : apply_layout(m, a.ref->args, extents)) r.entries.push_back(ir::index_range(e, a.box));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::int64_t> checked_shape(const ir::Program& p, const std::string& buffer, std::string* why) {
  return checked_shape(buffer_access_ranges(p, buffer), buffer, why);
}

std::vector<std::int64_t> checked_shape(const std::vector<AccessRanges>& acc, const std::string& buffer,
                                        std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return std::vector<std::int64_t>{};
  };
  std::vector<std::int64_t> shape;
  for (const auto& a : acc) {
    if (shape.empty()) shape.assign(a.entries.size(), 0);
    for (std::size_t d = 0; d < a.entries.size(); ++d) {
      const auto& r = a.entries[d];
      if (!r.exact()) return fail("an entry of " + buffer + " has no exact static range");
      if (!a.write) continue;
      if (r.lo < 0 || r.hi >= (std::int64_t{1} << 31) - 1) return fail("a write index of " + buffer + " is out of range");
      shape[d] = std::max(shape[d], r.hi + 1);
    }
  }
  for (const auto& a : acc)
    if (!a.write && !a.guarded)
      for (std::size_t d = 0; d < a.entries.size(); ++d)
        if (a.entries[d].lo < 0 || a.entries[d].hi >= shape[d])
          return fail("an unguarded read of " + buffer + " would leave the new shape");
  return shape;
}

}  // namespace steptp::strategy::memory
