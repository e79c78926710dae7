// Facts records (STRATEGIES.md §10): a JSON object built from the AST and the analyses, never from a text diff.
// Common keys: strategy, family, class, candidate, site, params, loops, buffers, nests, names, legality,
// conditions, cost. Strategy-specific keys are added with set(). finish() (strategies/common.hpp) fills
// class, buffers, nests and names.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "ir/task.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy {

class Facts {
 public:
  /// Starts a record with strategy, family, candidate, params and the site reference.
  Facts(const StrategyInfo& info, const Candidate& c);

  /// Site details for a nest: path, printed header, and `loops` ({key, kind, extent} of the site nest).
  void site_nest(const ir::Program& p, const analysis::NestPath& path);
  /// Site details for a statement of that nest: its printed text.
  void site_stmt(const ir::Stmt& s);
  /// A legality record {check, method (isl|syntactic|structural), result, detail}.
  void legality(const std::string& check, const std::string& method, bool result, const std::string& detail = "");
  /// A condition record {kind (domain|range), expr, status (proven|guarded), reason}.
  void condition(const std::string& kind, const std::string& expr, const std::string& status,
                 const std::string& reason);
  /// Adds to cost.<key> (elements_added, bytes_added, elements_recomputed); zero values are not recorded.
  void cost(const std::string& key, std::int64_t v);
  /// A strategy-specific key.
  void set(const std::string& key, nlohmann::json v) { j_[key] = std::move(v); }

  nlohmann::json& json() { return j_; }
  const nlohmann::json& json() const { return j_; }

 private:
  nlohmann::json j_;
};

/// Printed header of a nest ("B^{8}_{tx=0}L^{4}_{a=0}").
std::string print_header(const ir::Nest& n);
/// {key, kind, extent} of one loop.
nlohmann::json loop_json(const ir::Loop& l);

}  // namespace steptp::strategy
