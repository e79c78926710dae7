// Builders shared by the special strategies (entries 36, 40, 41, 42): prefix buffers read at the previous
// position (`if_then_else(k-1<0,init,X_{s,k-1})`), the online normaliser of entry 40 (with the -inf guard), the
// rewrite of a normalisation's M/S reads, and helper (extraction) nests built by the §7.5 binding rule.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "ir/ast.hpp"
#include "ir/task.hpp"
#include "strategies/analysis/softmax.hpp"
#include "strategies/analysis/refs.hpp"
#include "strategies/facts.hpp"

namespace steptp::strategy::special {

/// A fresh prefix buffer `X_{s,k}`: the subscript s of the reduction it replaces plus the axis key k.
struct PrefixBuf {
  std::string name;
  ir::DType dtype = ir::DType::F32;
  ir::Scope scope = ir::Scope::Global;
  std::vector<ir::Expr> s;
  std::string k;
  /// `X_{s,last}`.
  ir::Expr at(ir::Expr last) const;
  /// `X_{s,k}`.
  ir::Expr at_k() const;
  /// `if_then_else(k-1<0,init,X_{s,k-1})`.
  ir::Expr prev(ir::Expr init) const;
};

/// `-inf`.
ir::Expr neg_inf();
/// `a op b`.
ir::Expr bin(ir::BinOp op, ir::Expr a, ir::Expr b);
/// A statement `lhs=rhs;`.
ir::Stmt make_stmt(ir::Expr lhs, ir::Expr rhs);

/// `Mp_{s,k}=max(if_then_else(k-1<0,-inf,Mp_{s,k-1}),y)`.
ir::Stmt prefix_max_stmt(const PrefixBuf& mp, const ir::Expr& y);
/// `k<n-1&Mp_{s,k}==-inf`: every score so far is -inf, and this is not the last step.
ir::Expr neg_inf_cond(const PrefixBuf& mp, std::int64_t n);
/// `if_then_else(k<n-1&Mp_{s,k}==-inf,0,e)`: the guard of the online rescaling on a row whose leading scores are
/// -inf (masked attention), where the catalogue's form computes -inf-(-inf) = NaN. The last step is left
/// unguarded, so a row whose scores are all -inf gives NaN exactly as the unfused softmax does.
ir::Expr neg_inf_guard(const PrefixBuf& mp, std::int64_t n, ir::Expr e);
/// `Lp_{s,k}=if_then_else(k-1<0,1,Lp_{s,k-1})*exp(if_then_else(k-1<0,-inf,Mp_{s,k-1})-Mp_{s,k})+exp(y-Mp_{s,k})`,
/// wrapped in neg_inf_guard when `guard` (n: the extent of k).
ir::Stmt online_sum_stmt(const PrefixBuf& mp, const PrefixBuf& lp, const ir::Expr& y, std::int64_t n, bool guard);

/// The fused nest of entry 40 (the max nest's header; Mp then Lp), and the two prefix buffers (names taken from
/// `mp_name`, `lp_name`, subscript from M's, dtypes from M and S).
struct FusedSoftmax {
  PrefixBuf mp, lp;
  ir::Nest nest;
  std::int64_t n = 0;  // extent of k
  bool guarded = false;
};
FusedSoftmax fused_softmax(const ir::Task& t, const analysis::MaxSumPair& pr, const std::string& mp_name,
                           const std::string& lp_name, ir::Scope scope);

/// `S_s` written with M's subscript (the sum's accumulator in the max nest's keys).
ir::Expr sum_ref_in_max_keys(const analysis::MaxSumPair& pr);

/// A helper nest (§7.5) holding `body`, over the loops of `site_loops` whose keys the body uses (site order).
ir::Nest helper_nest(const std::vector<ir::Loop>& site_loops, std::vector<ir::Stmt> body);

/// Rewrites a normalisation statement's reads `M_x` -> `Mp_{x,n-1}` and `S_x` -> `Lp_{x,n-1}`.
void read_final_prefix(ir::Stmt& div, const analysis::MaxSumPair& pr, const FusedSoftmax& f);

/// Records the -inf guard (a domain condition, status guarded) when `f.guarded`.
void guard_fact(Facts& fa, const FusedSoftmax& f);

/// Number of elements of a prefix buffer written over `nest`'s loops (product of the extents).
std::int64_t nest_elements(const ir::Nest& nest);

/// Records the cost of the two prefix buffers Mp and Lp written over `nest`'s loops (elements_added, bytes_added)
/// and returns their element count each.
std::int64_t prefix_cost(Facts& fa, const ir::Nest& nest, const FusedSoftmax& f);

}  // namespace steptp::strategy::special
