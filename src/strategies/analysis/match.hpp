// Structural matching of expressions up to a renaming of loop keys, and operand skeletons (STRATEGIES.md §11
// entries 4, 6, 40-42: "structurally equal once every access is replaced by an operand slot", "occurrences match
// structurally, up to a renaming between keys of equal extent", "y' equals y structurally after renaming").
// Shared by the graph and special strategies; nothing here allocates names or edits the AST.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/ast.hpp"

namespace steptp::strategy::analysis {

/// A bijective renaming from the keys of the second expression to the keys of the first.
struct KeyRenaming {
  std::map<std::string, std::string> to_first;   // key of b -> key of a
  std::map<std::string, std::string> to_second;  // key of a -> key of b
  /// Records b_key -> a_key; false if either side is already bound to another key.
  bool bind(const std::string& a_key, const std::string& b_key);
};

/// May key `a_key` (of the first expression) stand for `b_key` (of the second)? E.g. "equal extents". An empty
/// function accepts every pair.
using KeyCompatible = std::function<bool(const std::string& a_key, const std::string& b_key)>;

/// Structural equality (as ir::operator==: kinds, operators, buffer names, dtypes, scopes, literal values and
/// spellings, Group nodes) except that a loop key (Var node) of `b` matches a loop key of `a` through `r`, which is
/// extended bijectively as keys are met (pre-order); `compatible` vets each new binding. Pre-bound pairs in `r`
/// (e.g. header keys already matched by position) are honoured. On failure `r` may hold partial bindings: pass a
/// copy when it matters.
bool equal_up_to_keys(const ir::Expr& a, const ir::Expr& b, KeyRenaming& r, const KeyCompatible& compatible = {});

/// Operand skeletons: are `a` and `b` equal once every buffer access (Ref node, subscript included) is replaced by
/// an operand slot? Operators, functions, literals and loop keys used as values must match exactly. On success,
/// `slots` (when non-null) receives the pairs of accesses in pre-order.
bool same_skeleton(const ir::Expr& a, const ir::Expr& b,
                   std::vector<std::pair<const ir::Expr*, const ir::Expr*>>* slots = nullptr);

/// The skeleton printed with `$0`, `$1`, ... in place of the accesses (pre-order), e.g. `exp($0)` (facts).
std::string print_skeleton(const ir::Expr& e);

}  // namespace steptp::strategy::analysis
