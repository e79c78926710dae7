#include "strategies/memory/buffer_sites.hpp"

#include <set>

#include "strategies/analysis/locate.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::memory {

std::vector<BufferSite> buffer_sites(const ir::Task& t) {
  std::vector<BufferSite> out;
  std::set<std::string> seen;
  for (const auto& sc : analysis::collect_stmts(t.program)) {
    const ir::Expr& w = sc.stmt->lhs;
    if (t.find_known(w.text) || !seen.insert(w.text).second) continue;
    BufferSite b;
    b.buffer = w.text;
    b.scope = w.scope;
    b.ref.nest = sc.nest;
    b.ref.stmt = sc.item;
    out.push_back(std::move(b));
  }
  return out;
}

BufferSite buffer_site_at(const ir::Task& t, const SiteRef& ref) {
  for (auto& b : buffer_sites(t))
    if (b.ref == ref) return b;
  throw_stale(ref.to_string() + " is not the first write of an intermediate");
}

}  // namespace steptp::strategy::memory
