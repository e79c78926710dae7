#include "strategies/memory/buffer_sites.hpp"

#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/name_ids.hpp"
#include "strategies/common.hpp"

namespace steptp::strategy::memory {

namespace {

struct Walk {
  const ir::Task& t;
  analysis::NameIds ids;
  struct Info {
    std::uint32_t last_top = ~std::uint32_t{0};
    int tops = 0;
    bool written = false;
    int site = -1;  // index in out, or -1 (not written yet, or known)
  };
  std::vector<Info> info;
  std::vector<BufferSite> out;
  std::uint32_t top = 0;

  Info& touch(std::string_view name) {
    const std::uint32_t id = ids.id(name);
    if (id >= info.size()) info.resize(id + 1);
    Info& i = info[id];
    if (i.last_top != top) i.last_top = top, ++i.tops;
    return i;
  }
  void nest(const ir::Nest& n, analysis::NestPath& path) {
    for (std::uint32_t k = 0; k < n.body.size(); ++k) {
      const ir::Item& it = n.body[k];
      if (!it.is_stmt()) {
        path.push_back(k);
        nest(it.nest(), path);
        path.pop_back();
        continue;
      }
      const ir::Expr& w = it.stmt().lhs;
      Info& i = touch(w.text);
      if (!i.written && !t.find_known(w.text)) {  // the first write of an intermediate
        BufferSite b;
        b.buffer = w.text;
        b.scope = w.scope;
        b.ref.nest = path;
        b.ref.stmt = k;
        i.site = static_cast<int>(out.size());
        out.push_back(std::move(b));
      }
      i.written = true;
      auto read = [&](const ir::Expr& e) {
        if (e.kind == ir::ExprKind::Ref) touch(e.text);
      };
      for (const auto& e : w.args) ir::visit_expr(e, read);
      ir::visit_expr(it.stmt().rhs, read);
    }
  }
};

}  // namespace

std::vector<BufferSite> buffer_sites(const ir::Task& t) {
  Walk w{t, {}, {}, {}, 0};
  analysis::NestPath path;
  for (std::uint32_t i = 0; i < t.program.nests.size(); ++i) {
    w.top = i;
    path.assign(1, i);
    w.nest(t.program.nests[i], path);
  }
  for (std::uint32_t id = 0; id < w.info.size(); ++id)
    if (w.info[id].site >= 0) w.out[static_cast<std::size_t>(w.info[id].site)].top_nests = w.info[id].tops;
  return std::move(w.out);
}

BufferSite buffer_site_at(const ir::Task& t, const SiteRef& ref) {
  for (auto& b : buffer_sites(t))
    if (b.ref == ref) return b;
  throw_stale(ref.to_string() + " is not the first write of an intermediate");
}

}  // namespace steptp::strategy::memory
