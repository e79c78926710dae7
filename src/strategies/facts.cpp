#include "strategies/facts.hpp"

#include "ir/printer.hpp"

namespace steptp::strategy {

std::string print_header(const ir::Nest& n) {
  std::string s;
  for (const auto& l : n.loops) s += ir::print_loop(l);
  return s;
}

nlohmann::json loop_json(const ir::Loop& l) {
  return {{"key", l.var}, {"kind", std::string(1, ir::loop_kind_char(l.kind))}, {"extent", l.extent}};
}

Facts::Facts(const StrategyInfo& info, const Candidate& c) {
  j_["strategy"] = std::string(info.name);
  j_["family"] = std::string(family_name(info.family));
  j_["class"] = "E";
  j_["candidate"] = c.id();
  nlohmann::json site = nlohmann::json::object();
  site["ref"] = c.ref.to_string();
  site["nest"] = c.ref.nest;
  if (c.ref.loop) site["loop"] = *c.ref.loop;
  if (c.ref.stmt) site["stmt"] = *c.ref.stmt;
  if (!c.ref.expr.empty()) site["expr"] = c.ref.expr;
  j_["site"] = site;
  nlohmann::json params = nlohmann::json::object();
  for (const auto& p : c.params) params[p.name] = p.value;
  j_["params"] = params;
  j_["loops"] = nlohmann::json::array();
  j_["legality"] = nlohmann::json::array();
  j_["conditions"] = nlohmann::json::array();
}

void Facts::site_nest(const ir::Program& p, const analysis::NestPath& path) {
  const ir::Nest* n = analysis::nest_at(p, path);
  if (!n) return;
  j_["site"]["header"] = print_header(*n);
  nlohmann::json loops = nlohmann::json::array();
  for (const auto& l : n->loops) loops.push_back(loop_json(l));
  j_["loops"] = loops;
}

void Facts::site_stmt(const ir::Stmt& s) { j_["site"]["statement"] = ir::print_stmt(s); }

void Facts::legality(const std::string& check, const std::string& method, bool result, const std::string& detail) {
  nlohmann::json r = {{"check", check}, {"method", method}, {"result", result}};
  if (!detail.empty()) r["detail"] = detail;
  j_["legality"].push_back(r);
}

void Facts::condition(const std::string& kind, const std::string& expr, const std::string& status,
                      const std::string& reason) {
  j_["conditions"].push_back({{"kind", kind}, {"expr", expr}, {"status", status}, {"reason", reason}});
}

void Facts::cost(const std::string& key, std::int64_t v) {
  if (v == 0) return;
  std::int64_t cur = j_.contains("cost") && j_["cost"].contains(key) ? j_["cost"][key].get<std::int64_t>() : 0;
  j_["cost"][key] = cur + v;
}

}  // namespace steptp::strategy
