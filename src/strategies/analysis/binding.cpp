#include "strategies/analysis/binding.hpp"

#include "strategies/analysis/names.hpp"

namespace steptp::strategy::analysis {

std::optional<std::string> hw_tag(const std::string& key) {
  if (key.size() < 2 || (key[0] != 't' && key[0] != 'b') || (key[1] != 'x' && key[1] != 'y' && key[1] != 'z'))
    return std::nullopt;
  for (char c : key)
    if (c < 'a' || c > 'z') return std::nullopt;
  return key.substr(0, 2);
}

namespace {
void tags_rec(const ir::Nest& n, std::map<std::string, std::int64_t>& out) {
  for (const auto& l : n.loops)
    if (l.kind == ir::LoopKind::B)
      if (auto t = hw_tag(l.var)) out[*t] = std::max(out[*t], l.extent);
  for (const auto& it : n.body)
    if (it.is_nest()) tags_rec(it.nest(), out);
}
std::int64_t get(const std::map<std::string, std::int64_t>& m, const char* k) {
  auto it = m.find(k);
  return it == m.end() ? 1 : it->second;
}
}  // namespace

std::map<std::string, std::int64_t> bound_tags(const ir::Nest& n) {
  std::map<std::string, std::int64_t> out;
  tags_rec(n, out);
  return out;
}

namespace {
bool distinct_rec(const ir::Nest& n, std::set<std::string>& seen) {
  for (const auto& l : n.loops)
    if (l.kind == ir::LoopKind::B) {
      auto t = hw_tag(l.var);
      if (!t || !seen.insert(*t).second) return false;
    }
  for (const auto& it : n.body)
    if (it.is_nest() && !distinct_rec(it.nest(), seen)) return false;
  return true;
}
}  // namespace

bool hw_tags_distinct(const ir::Nest& n) {
  std::set<std::string> seen;
  return distinct_rec(n, seen);
}

std::int64_t thread_product(const std::map<std::string, std::int64_t>& tags) {
  return get(tags, "tx") * get(tags, "ty") * get(tags, "tz");
}

bool launch_limits_ok(const std::map<std::string, std::int64_t>& tags, const StrategyConfig& cfg,
                      std::string* why) {
  auto fail = [&](const std::string& w) {
    if (why) *why = w;
    return false;
  };
  if (get(tags, "tx") > cfg.max_thread_xy) return fail("threadIdx.x extent > 1024");
  if (get(tags, "ty") > cfg.max_thread_xy) return fail("threadIdx.y extent > 1024");
  if (get(tags, "tz") > cfg.max_thread_z) return fail("threadIdx.z extent > 64");
  if (thread_product(tags) > cfg.max_threads) return fail("threads per block > 1024");
  if (get(tags, "bx") > cfg.max_block_x) return fail("blockIdx.x extent > 2^31-1");
  if (get(tags, "by") > cfg.max_block_yz) return fail("blockIdx.y extent > 65535");
  if (get(tags, "bz") > cfg.max_block_yz) return fail("blockIdx.z extent > 65535");
  return true;
}

HelperHeader helper_header(const std::vector<ir::Loop>& site_loops) {
  HelperHeader h;
  h.loops = site_loops;
  std::set<std::string> used_tags;
  for (const auto& l : h.loops)
    if (l.kind == ir::LoopKind::B) {
      if (auto t = hw_tag(l.var)) used_tags.insert(*t);
    }
  if (!used_tags.empty()) return h;
  for (auto& l : h.loops) {
    if (l.extent > 1024) continue;
    std::set<std::string> keys;
    for (const auto& o : h.loops) keys.insert(o.var);
    std::string key;
    for (const char* t : {"tx", "ty", "tz"})
      if (!keys.count(t)) {
        key = t;
        break;
      }
    for (std::uint64_t i = 0; key.empty(); ++i) {
      std::string cand = "tx" + loop_key_at(i);
      if (!keys.count(cand)) key = cand;
    }
    h.renamed[l.var] = key;
    l.var = key;
    l.kind = ir::LoopKind::B;
    return h;
  }
  h.loops.insert(h.loops.begin(), ir::Loop{ir::LoopKind::B, 1, "tx", 0});
  return h;
}

}  // namespace steptp::strategy::analysis
