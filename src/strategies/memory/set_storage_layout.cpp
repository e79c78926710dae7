// set_storage_layout (STRATEGIES.md §11 entry 21): apply one index map (layout_map.hpp: transpose, row-major
// flatten, merge, split) to the subscript of every occurrence of one intermediate, without copying.
// Site: a non-known buffer of rank >= 1 (addressed by its first writing statement) with no gather entry in any
// access. The map's extents are the buffer's shape from interval analysis (the validator's inferred shape, LEIR.md
// §7.2), on which every map is injective. A map is offered only when the rewritten accesses keep exact static
// ranges and every unguarded read stays inside the new inferred shape (layout_map.hpp checked_shape). Class E.
#include "ir/printer.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/access.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/analysis/typed.hpp"
#include "strategies/common.hpp"
#include "strategies/config.hpp"
#include "strategies/memory/buffer_sites.hpp"
#include "strategies/memory/layout_map.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {
namespace {

/// The buffer's inferred shape, or empty when it is not eligible (rank 0, or a gather entry somewhere).
std::vector<std::int64_t> eligible_shape(const ir::Task& t, const ir::Analysis& an, const std::string& buffer) {
  for (const auto& a : buffer_accesses(t.program, buffer))
    if (analysis::has_gather(*a.ref)) return {};
  const ir::BufferInfo* bi = an.find(buffer);
  if (!bi) return {};
  return bi->shape;
}

ir::Program remapped(const ir::Program& p, const std::string& buffer, const LayoutMap& m,
                     const std::vector<std::int64_t>& shape, int* count = nullptr) {
  ir::Program out = p;
  int n = 0;
  analysis::for_each_ref(out, buffer, [&](ir::Expr& r) {
    r.args = apply_layout(m, r.args, shape);
    ++n;
  });
  if (count) *count = n;
  return out;
}

// The maps whose rewritten accesses pass checked_shape (only `only`'s tuple when set: the re-check of one
// candidate).
std::vector<Params> legal_maps(const ir::Task& t, const std::string& buffer, const std::vector<std::int64_t>& shape,
                               const Params* only = nullptr) {
  std::vector<Params> out;
  const auto acc = buffer_accesses(t.program, buffer);
  ParamSpace ps = layout_params(shape);
  for (std::uint64_t k = 0; k < ps.size(); ++k) {
    Params p = ps.at(k);
    if (only && p != *only) continue;
    // A transpose permutes the entries of every access: each keeps its exact range, the inferred shape permutes
    // with them and every read stays inside it, so it is legal whenever the program is valid.
    if (!p.empty() && p[0].name == "variant" && p[0].value == "transpose") {
      out.push_back(std::move(p));
      continue;
    }
    LayoutMap m = layout_from_params(p, shape);
    if (!checked_shape(mapped_access_ranges(acc, m, shape), buffer, nullptr).empty()) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<Site> enumerate_set_storage_layout(const ir::Task& t) {
  std::vector<Site> out;
  const auto typed = analysis::typed_task(t);
  const ir::Analysis& an = typed->analysis;
  for (const auto& b : buffer_sites(t)) {
    auto shape = eligible_shape(t, an, b.buffer);
    if (shape.empty()) continue;
    auto ps = legal_maps(t, b.buffer, shape);
    if (!ps.empty()) out.push_back(Site{b.ref, list_params(std::move(ps))});
  }
  return out;
}

Applied apply_set_storage_layout(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("set_storage_layout");
  if (c.strategy != info.name) throw_bad_params(c.id());
  // Site re-check (§5 step 1) restricted to the candidate's buffer: the same rules as enumerate.
  const BufferSite b = buffer_site_at(t, c.ref);  // S001 when no buffer site is there
  if (!c.ref.expr.empty() || c.ref.loop) throw_stale("no set_storage_layout site at " + c.ref.to_string());
  const auto shape = eligible_shape(t, analysis::typed_task(t)->analysis, b.buffer);
  if (shape.empty()) throw_stale("buffer " + b.buffer + " is not eligible for set_storage_layout");
  const LayoutMap m = layout_from_params(c.params, shape);  // S002 when the tuple is malformed for this shape
  if (legal_maps(t, b.buffer, shape, &c.params).empty())
    throw_bad_params("map " + c.id() + " is not legal for buffer " + b.buffer);
  int count = 0;
  ir::Task after = t;
  after.program = remapped(t.program, b.buffer, m, shape, &count);
  const auto new_shape = checked_shape(after.program, b.buffer, nullptr);
  const ir::Stmt* first = nullptr;
  for (const auto& sc : analysis::collect_stmts(t.program))
    if (!first && sc.stmt->lhs.text == b.buffer) first = sc.stmt;
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.site_stmt(*first);
  f.set("buffer", b.buffer);
  f.set("shape_before", shape);
  f.set("shape_after", new_shape);
  f.set("map", layout_json(m, first->lhs.args, apply_layout(m, first->lhs.args, shape)));
  f.set("occurrences_rewritten", count);
  f.legality("map injective on the shape", "structural", true, m.variant);
  f.legality("accesses stay inside the new shape", "structural", true, "interval analysis (LEIR.md §7.2)");
  return finish(t, std::move(after), std::move(f), Exactness::Exact);
}

STEPTP_REGISTER_STRATEGY(set_storage_layout, 21, Memory,
                         "Change the layout of one intermediate by applying the same index map to "
                         "the subscript of every occurrence, without copying.",
                         enumerate_set_storage_layout, apply_set_storage_layout);

}  // namespace steptp::strategy::memory
