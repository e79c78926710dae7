// Loop layout shared by reductions, softmax, arg-reductions and normalisations (ops_reduce.cpp, ops_norm.cpp):
// kept (non-reduced) dims are spatial loops, reduced dims are reduction loops, following the reference's
// `B^{N}_{tx=0}L^{K}_{a=0}[M_{tx}=max(M_{tx},A_{tx,a});]` layout.
#pragma once
#include <vector>

#include "frontend/onnx/context.hpp"

namespace steptp::frontend::onnx_detail {

struct RedLayout {
  Loops l;
  std::vector<ir::Expr> in_idx;    // full input subscript
  std::vector<ir::Expr> kept_idx;  // subscript of a kept-dims buffer (reduced dims dropped)
  Shape kept;                      // kept dims' extents
  bool has_rvars = false;          // does some reduced dim have extent > 1?
  std::int64_t count = 1;          // number of reduced elements
};

/// Layout over `in_shape` reducing the dims flagged in `reduced`.
RedLayout red_layout(Context& ctx, const Shape& in_shape, const std::vector<bool>& reduced);
/// Layout that loops over all of `in_shape` (no reduction) and also gives the kept-dims subscript.
RedLayout full_layout(Context& ctx, const Shape& in_shape, const std::vector<bool>& reduced);

/// Emits `T[kept] = T[kept] <op> term` (or `T = term` when nothing is reduced) into a fresh buffer; op is
/// "+", "*", "max" or "min". Returns the buffer name (dtype dt, shape kept).
std::string emit_accumulate(Context& ctx, const RedLayout& r, ir::DType dt, const std::string& op, ir::Expr term,
                            const std::string& dst = "");

/// Flags of the normalised `axes` over `rank` dims (empty axes: all dims).
std::vector<bool> axes_mask(const Node& n, const Shape& axes, std::size_t rank);

}  // namespace steptp::frontend::onnx_detail
