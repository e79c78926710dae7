// Softmax and attention pattern matching for the special strategies (STRATEGIES.md §11 entries 36, 40, 41, 42).
// Written once, used by normal_loop_max_to_prefix_max, the prefix-sum fusion (40), online_softmax and
// flashattention_wo_tiling. Purely structural (AST only): nothing here allocates names or edits the AST.
//
//   max reduction (36, B4):  a top-level nest whose body is the single statement `M_s=max(M_s,y)` with the
//                            accumulator as the first direct operand of the root `max`, implicit init, a float
//                            accumulator, every key in scope used and exactly one reduction key k, which is a
//                            serial (L or U) loop of the header.
//   (max, sum) pair (40):    nest m as above and nest m+1 with a header equal up to a positional key renaming,
//                            holding `S_s=S_s+exp(y'-M_s)` (implicit init, same k after renaming), y' equal to y
//                            up to that renaming and reading neither M nor S.
//   (max, sum, normalise)    a pair plus a later statement `P=exp(y''-M_s)/S_s` (y'' equal to y up to a key
//   triple (41):             renaming that also maps the M and S subscripts onto M's), with no write to M or S
//                            between the sum nest and it.
//   attention (42):          a triple whose normalisation is the only statement of its top-level nest, plus a
//                            later single-statement nest `O_{s,j}=O_{s,j}+P_{s,k}*V_w` (either factor order) whose P
//                            subscript maps onto the softmax keys (the product's reduction key onto k).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/task.hpp"
#include "strategies/analysis/locate.hpp"
#include "strategies/analysis/match.hpp"
#include "strategies/analysis/reduction.hpp"

namespace steptp::strategy::analysis {

/// A genuine max reduction over one serial key (entry 36's site).
struct MaxReduction {
  std::uint32_t nest = 0;          // top-level index
  const ir::Stmt* stmt = nullptr;  // `M_s=max(M_s,y)`
  Reduction red;                   // op Max, implicit init
  std::string k;                   // the reduction key
  std::int64_t n = 0;              // its extent
  const ir::Expr& y() const { return *red.operand; }
  const std::string& acc() const { return red.acc; }
};
/// Entry 36's site test on top-level nest `top`.
std::optional<MaxReduction> match_max_reduction(const ir::Task& t, std::uint32_t top);

/// A (max, sum of exp) pair in consecutive nests (entry 40's site).
struct MaxSumPair {
  MaxReduction max;
  std::uint32_t sum_nest = 0;          // max.nest + 1
  const ir::Stmt* sum_stmt = nullptr;  // `S_s=S_s+exp(y'-M_s)`
  KeyRenaming keys;                    // sum-nest key -> max-nest key (positional)
  const std::string& sum() const { return sum_stmt->lhs.text; }
};
/// Entry 40's site test on nests (m, m+1).
std::optional<MaxSumPair> match_max_sum(const ir::Task& t, std::uint32_t m);

/// A (max, sum, normalise) triple (entry 41's site).
struct SoftmaxTriple {
  MaxSumPair pair;
  NestPath div_nest;               // path of the nest holding the normalisation
  std::uint32_t div_item = 0;      // its body index
  const ir::Stmt* div = nullptr;   // `P=exp(y''-M_s)/S_s`
  KeyRenaming keys;                // normalisation key -> max-nest key
  std::uint32_t div_top() const { return div_nest[0]; }
};
/// Every triple of the program, ordered by the normalisation statement's position (program order).
std::vector<SoftmaxTriple> match_softmax_triples(const ir::Task& t);

/// A softmax followed by its product with V (entry 42's site).
struct AttentionSite {
  SoftmaxTriple tri;
  std::uint32_t mm = 0;                      // top-level index of the product nest
  const ir::Stmt* mm_stmt = nullptr;         // `O_{s,j}=O_{s,j}+P_{s,k}*V_w`
  const ir::Expr* v = nullptr;               // V_w as written
  std::string kp;                            // the product's reduction key (maps to k)
  std::map<std::string, std::string> to_max;  // product key of P's subscript -> max-nest key
  std::vector<std::string> j_keys;           // O's keys that P does not use, in O's subscript order
  std::vector<std::uint32_t> kept_between;   // top-level nests strictly between the softmax and the product
  bool keep_p = false;                       // P is known or read by a statement other than the product (B22)
};
/// Every attention site, ordered by the product nest.
std::vector<AttentionSite> match_attention(const ir::Task& t);

/// Can `y` evaluate to -inf? Conservatively true when y, or a statement that (transitively) defines a buffer y
/// reads, contains `inf` or `log`. Known buffers without a defining statement count as finite (the test of entry
/// 39, made transitive). Used to guard the online rescaling, whose catalogue form gives NaN (-inf minus -inf) on a
/// row whose leading scores are -inf (masked attention).
bool may_be_neg_inf(const ir::Program& p, const ir::Expr& y);

/// Buffers written by top-level nests [from, to).
std::vector<std::string> written_in(const ir::Program& p, std::uint32_t from, std::uint32_t to);
/// Is `buf` read anywhere in the program outside the statements in `except`?
bool read_elsewhere(const ir::Program& p, const std::string& buf, const std::vector<const ir::Stmt*>& except);

}  // namespace steptp::strategy::analysis
