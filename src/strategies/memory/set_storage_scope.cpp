// set_storage_scope (STRATEGIES.md §11 entry 20): change the scope of one intermediate at every occurrence.
// Site: a non-known buffer (known buffers never qualify, B15), addressed by its first writing statement. Params:
// scope in (g, s, l) minus the current scope; s and l only when confined(buffer, scope) holds (§7.4: one top-level
// nest, value-based flow from the same iteration of its first B loop, and for l of every enclosing B loop).
// Class E (a scope never changes results, LEIR.md §6).
#include "strategies/analysis/confined.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/common.hpp"
#include "strategies/memory/buffer_sites.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::memory {
namespace {

std::vector<Params> scopes(const ir::Task& t, const BufferSite& b) {
  std::vector<Params> ps;
  for (ir::Scope s : {ir::Scope::Global, ir::Scope::Shared, ir::Scope::Local}) {
    if (s == b.scope) continue;
    // A buffer in two top-level nests is never confined; in one, that nest holds its first write.
    if (s != ir::Scope::Global &&
        (b.top_nests > 1 || !analysis::confined_in_nest(t.program, b.buffer, s, b.ref.nest.at(0))))
      continue;
    ps.push_back(Params{Param{"scope", std::string(ir::scope_name(s))}});
  }
  return ps;
}

}  // namespace

std::vector<Site> enumerate_set_storage_scope(const ir::Task& t) {
  std::vector<Site> out;
  for (const auto& b : buffer_sites(t)) {
    auto ps = scopes(t, b);
    if (!ps.empty()) out.push_back(Site{b.ref, list_params(std::move(ps))});
  }
  return out;
}

Applied apply_set_storage_scope(const ir::Task& t, const Candidate& c) {
  const StrategyInfo& info = info_of("set_storage_scope");
  recheck(info, t, c);
  const BufferSite b = buffer_site_at(t, c.ref);
  const std::string target = param_str(c, "scope");
  const ir::Scope sc = target == "g" ? ir::Scope::Global : target == "s" ? ir::Scope::Shared : ir::Scope::Local;
  ir::Task after = t;
  const int n = analysis::set_scope(after.program, b.buffer, sc);
  Facts f(info, c);
  f.site_nest(t.program, c.ref.nest);
  f.set("buffer", b.buffer);
  f.set("scope_before", std::string(ir::scope_name(b.scope)));
  f.set("scope_after", target);
  f.set("occurrences", n);
  if (sc == ir::Scope::Global)
    f.legality("scope g is always allowed", "structural", true);
  else
    f.legality("confined(" + b.buffer + ", " + target + ")", "isl", true,
               "one top-level nest; every read sees a write from the same iteration of its first B loop" +
                   std::string(sc == ir::Scope::Local ? " and of every enclosing B loop" : ""));
  f.set("confinement", f.json()["legality"].back());
  return finish(t, std::move(after), std::move(f), Exactness::Exact);
}

STEPTP_REGISTER_STRATEGY(set_storage_scope, 20, Memory,
                         "Change the storage scope (global, shared or local) of one intermediate "
                         "at every occurrence.",
                         enumerate_set_storage_scope, apply_set_storage_scope);

}  // namespace steptp::strategy::memory
