// What the GiNaC strategies (STRATEGIES.md §11 entries 23-34) share: the target nodes of each statement (§9.1
// "Target"), the per-node driver that turns a rule into sites and candidates, the splice of a rewritten
// sub-tree back into the original AST, domain conditions (§6, §9.4) with the domain policy, and the count of
// GiNaC failures that became "no candidate".
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/task.hpp"
#include "strategies/algebraic/bridge.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/sign.hpp"
#include "strategies/facts.hpp"
#include "strategies/registry.hpp"

namespace steptp::strategy::algebraic {

/// One statement whose target can be rewritten: the typed statement, its site reference (nest, stmt) and the
/// expression path of its target (§9.1: the RHS, or the operand u of a reduction `X_s = X_s (+) u`).
struct TargetStmt {
  const ir::Stmt* stmt = nullptr;  // typed (validator annotations)
  analysis::NestPath nest;
  std::uint32_t item = 0;
  std::vector<std::uint32_t> target;  // path of the target root (1 = RHS)
  ir::DType dtype = ir::DType::F32;   // evaluation type of the target
};

/// A node of a target: the path (SiteRef::expr) and the node. Groups are looked through (never a node).
struct TargetNode {
  std::vector<std::uint32_t> path;
  const ir::Expr* e = nullptr;
};

/// The statements of the typed task whose target has a float type, in program order.
std::vector<TargetStmt> target_stmts(const ir::Task& typed);
/// The nodes of one target in pre-order (outside subscripts; not inside opaque nodes such as max or if_then_else,
/// whose arguments GiNaC never sees as algebra).
std::vector<TargetNode> target_nodes(const TargetStmt& ts);

/// The parent of a target node (groups looked through); nullptr for the target root.
const ir::Expr* parent_of(const TargetStmt& ts, const TargetNode& n);
/// A `+`/`-` node (a sum), a `*`/`/` node (a product).
bool is_sum_node(const ir::Expr* e);
bool is_product_node(const ir::Expr* e);

/// A rewrite of one node: the new sub-tree, the exactness class, the domain conditions, and entry-specific facts.
struct Rewrite {
  ir::Expr after;
  Exactness cls = Exactness::Reassoc;
  struct Condition {
    std::string kind;  // "nonzero" (u!=0), "positive" (u>0), "nonnegative" (u>=0)
    ir::Expr u;
    bool proven = false;
    std::string reason;  // sign evidence, or why it is not proven
  };
  std::vector<Condition> conditions;
  nlohmann::json facts = nlohmann::json::object();
  std::string range_note;  // non-empty: recorded as a range condition
};

/// A strategy's rule at one node: every rewrite it offers there, one per parameter tuple (in the entry's order).
/// The rule may throw anything: a GiNaC error or NotRepresentable turns into "no candidate" (counted).
using Rule = std::function<std::vector<std::pair<Params, Rewrite>>(Bridge& b, const TargetStmt& ts,
                                                                    const TargetNode& n, const ir::Task& t)>;

/// enumerate(): the sites of `rule` over every target node of the task, after the domain policy (a rewrite with an
/// unproven condition is dropped under Prove and kept, to be guarded, under Guard).
std::vector<Site> enumerate_rule(const std::string& strategy, const ir::Task& t, const Rule& rule);
/// apply(): re-checks the candidate (S001/S002), splices the rewrite (guarded when the policy says so), records
/// the common algebraic facts (statement, subexpr_before, subexpr_after, conditions, range_note) plus the rule's
/// own, and finishes (validator, common facts).
Applied apply_rule(const std::string& strategy, const ir::Task& t, const Candidate& c, const Rule& rule);

/// A condition on `u` with its proof from sign analysis (kind: "nonzero", "positive", "nonnegative").
Rewrite::Condition condition(const std::string& kind, const ir::Expr& u, const analysis::SignAnalysis& signs);
/// The conditions §9.4 derives from the partial operations of the node before and after the rewrite: divisors
/// matched by irreducible factors (GiNaC `factor`, `divide`), log and sqrt arguments and bases of non-integer
/// powers matched structurally (as GiNaC expressions). Each unmatched operation yields a condition.
std::vector<Rewrite::Condition> partial_conditions(Bridge& b, const ir::Expr& before, const ir::Expr& after,
                                                   const analysis::SignAnalysis& signs);
/// Adds each condition of `more` that `into` lacks (same kind and printed u).
void add_conditions(std::vector<Rewrite::Condition>& into, const std::vector<Rewrite::Condition>& more);

/// Are all atoms of `x` accesses to known non-output buffers or loop keys (no intermediate, no opaque node)? The
/// range restriction of expand_cancellation's multipliers and expand_powsimp's exp split: an intermediate can reach
/// magnitudes far beyond the input draws (a matmul output), where exp(-u) factors overflow although the original
/// is finite (1/(1+exp(-C)) -> exp(C)/(exp(C)+1); exp(x-max) -> exp(x)*exp(-max) = inf*0).
bool over_inputs(const Bridge& b, const GiNaC::ex& x, const ir::Task& t);

/// The range rule (§6): does `after` multiply an exp argument by a constant of magnitude > 1 that `before` did not
/// have (exp(2*A))? Such a rewrite is never offered (B13).
bool breaks_range_rule(const ir::Expr& before, const ir::Expr& after);

/// GiNaC failures and unrepresentable results turned into "no candidate", by strategy and reason (process-wide).
std::map<std::string, std::int64_t> ginac_failures();

}  // namespace steptp::strategy::algebraic
