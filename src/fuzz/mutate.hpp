// Semantic mutations of a task (issue #16 part 3): small edits that almost always change what the program computes,
// used to measure whether the equivalence checker (equiv::check_equivalence) rejects wrong programs.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "equiv/inputs.hpp"
#include "ir/task.hpp"

namespace steptp::fuzz {

enum class MutationKind {
  OffByOne,       // a read subscript entry e becomes e+1 or e-1
  SwapOperands,   // the operands of a non-commutative operator (- / // % ** and the order comparisons) swap
  DropInit,       // a reduction loses its identity start: a new nest first stores a non-identity value (1, 2,
                  // +-100) into its target, so (§8.4 rule 2) the reduction continues from that value
  ChangeLiteral,  // a literal in a value position changes (integer +1, float +1.0)
  ShortenLoop,    // a loop extent decreases by one
  RemoveStmt,     // a statement is deleted (emptied nests go too)
  ZeroOutput,     // a statement writing an output stores 0 instead of its value
};
inline constexpr std::array<MutationKind, 7> kAllMutations{
    MutationKind::OffByOne,      MutationKind::SwapOperands, MutationKind::DropInit,  MutationKind::ChangeLiteral,
    MutationKind::ShortenLoop,   MutationKind::RemoveStmt,   MutationKind::ZeroOutput};

/// Snake-case name used in figures: "off_by_one", "swap_operands", "drop_init", "change_literal", "shorten_loop",
/// "remove_stmt", "zero_output".
std::string_view mutation_name(MutationKind k);

struct Mutant {
  ir::Task task;
  std::string site;  // what changed, e.g. "stmt 2: A_{a} -> A_{a+1}" (for reports)
};

/// A mutant of `t` of kind `k`: the sites of that kind are tried in an order drawn from `seed`, and the first edit
/// whose result passes ir::analyze without errors is returned. nullopt when the task has no site of that kind or
/// every edit gives an invalid program. `t` need not be annotated; it is not modified.
std::optional<Mutant> mutate(const ir::Task& t, MutationKind k, std::uint64_t seed);

}  // namespace steptp::fuzz
