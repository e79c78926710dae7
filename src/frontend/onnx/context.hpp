// Internal state of the ONNX importer: the value table (constants folded at import time, or LEIR buffers), node
// attribute access, fresh names (LEIR.md §5.1), loop-nest construction and the growing LEIR program with its
// known-buffer list. Op emitters (one file per op family, onnx/ops_*.cpp) use only this interface.
#pragma once
#include <cstdint>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "ir/ast.hpp"
#include "ir/task.hpp"

namespace onnx {
class NodeProto;
class TensorProto;
class AttributeProto;
}  // namespace onnx

namespace steptp::frontend::onnx_detail {

using Shape = std::vector<std::int64_t>;

/// A graph value: either a constant known at import time (`t` holds the data) or a LEIR buffer (`t` holds only
/// dtype and shape). A constant gets a buffer name only once it is read as a tensor (materialised as a known
/// `param` if it derives from an initializer, else `constant`).
struct Value {
  bool is_const = false;
  bool from_init = false;
  interp::Tensor t;
  std::string buffer;
  std::shared_ptr<std::string> const_buffer;  // constants: materialised buffer name, shared by aliases
  ir::DType dtype() const { return t.dtype; }
  const Shape& shape() const { return t.shape; }
  std::size_t rank() const { return t.shape.size(); }
  std::int64_t numel() const;
};

/// Read-only view of one ONNX node with typed attribute accessors. Errors name the op and the node.
class Node {
 public:
  explicit Node(const onnx::NodeProto& p) : p_(p) {}
  const std::string& op() const;
  std::string label() const;  // "Conv node '/conv/Conv'"
  std::size_t n_in() const;
  std::size_t n_out() const;
  bool has_in(std::size_t i) const;  // present and not the empty name
  const std::string& in_name(std::size_t i) const;
  const std::string& out_name(std::size_t i) const;
  bool has_attr(const std::string& name) const;
  std::int64_t attr_i(const std::string& name, std::int64_t def) const;
  double attr_f(const std::string& name, double def) const;
  std::string attr_s(const std::string& name, const std::string& def) const;
  Shape attr_ints(const std::string& name, const Shape& def = {}) const;
  const onnx::TensorProto* attr_t(const std::string& name) const;
  [[noreturn]] void fail(const std::string& msg) const;  // ir::LeirError E603 "<label>: msg" (import_error.hpp)
  const onnx::NodeProto& proto() const { return p_; }

 private:
  const onnx::AttributeProto* find(const std::string& name) const;
  const onnx::NodeProto& p_;
};

/// Loop headers of one nest plus the index expression of every requested dimension (spatial dims first, then
/// reduction dims): a loop variable, or the literal 0 for an extent-1 dimension (which gets no header).
struct Loops {
  std::vector<ir::Loop> headers;
  std::vector<ir::Expr> sp;  // spatial (output) dimensions
  std::vector<ir::Expr> rd;  // reduction dimensions
};

class Context {
 public:
  Context();
  std::int64_t opset = 13;  // default-domain opset of the model

  // ---- values ----
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const Value& value(const std::string& onnx_name) const;
  const Value& in(const Node& n, std::size_t i) const;           // required input
  const Value* opt_in(const Node& n, std::size_t i) const;       // nullptr if absent
  Shape const_ints(const Node& n, std::size_t i) const;          // input must be a constant
  double const_scalar(const Node& n, std::size_t i) const;       // one-element constant input
  void set_const(const std::string& name, interp::Tensor t, bool from_init);
  /// `name` is another name for `v` (Identity, Dropout); a graph output gets a copy nest.
  void set_alias(const Node& n, const std::string& name, const Value& v);
  void set_input(const std::string& onnx_name, ir::DType dt, const Shape& shape);
  void declare_output(const std::string& onnx_name, ir::DType declared, const Shape& declared_shape,
                      bool declared_known);
  /// Defines node output i as a buffer; returns its LEIR name (the known output buffer for a graph output).
  std::string def_out(const Node& n, std::size_t i, ir::DType dt, const Shape& shape);
  /// A fresh intermediate buffer name.
  std::string temp();

  // ---- reads ----
  /// Read of `v` with a full-rank subscript (constants: a literal when splat, else the materialised buffer).
  ir::Expr read(const Value& v, std::vector<ir::Expr> idx);
  /// numpy broadcasting read: `out_idx` indexes the broadcast result (rank >= v.rank()), right-aligned.
  ir::Expr read_bcast(const Value& v, const std::vector<ir::Expr>& out_idx);
  /// Reference to buffer `buf` (dtype `dt`, global scope).
  static ir::Expr ref(const std::string& buf, ir::DType dt, std::vector<ir::Expr> idx);
  ir::DType buffer_dtype(const std::string& buf) const;

  // ---- nests ----
  /// Loops over `spatial` (output) and `reduce` extents. The first spatial extent in [2, 1024] is a `B` loop
  /// named tx (LEIR.md §10.3 threadIdx.x limit); all others are `L`. A nest with no header gets B^{1}_{tx=0}.
  /// `no_bind`: a spatial dim that must stay a sequential `L` loop (e.g. a prefix-sum axis).
  Loops loops(const Shape& spatial, const Shape& reduce = {}, std::size_t no_bind = SIZE_MAX);
  void emit(const Loops& l, std::vector<ir::Stmt> body);
  void emit1(const Loops& l, ir::Expr lhs, ir::Expr rhs);
  /// Copies `src` (broadcast to `shape`) into buffer `dst`.
  void emit_copy(const std::string& dst, ir::DType dt, const Shape& shape, const Value& src);

  // ---- results ----
  /// Emits copies for graph outputs that are not written by a node; checks every output is defined.
  void finish(const std::vector<std::string>& graph_outputs);
  std::vector<ir::KnownBuffer> known() const;  // inputs, constants, params, outputs
  ir::Program& program() { return prog_; }
  interp::TensorMap& params() { return params_; }

 private:
  std::string fresh_buffer();
  std::string materialise(const Value& v);

  std::map<std::string, Value> values_;
  std::vector<ir::KnownBuffer> inputs_, consts_, params_known_, outputs_;
  std::map<std::string, std::vector<std::string>> output_names_;  // onnx name -> known output buffers
  std::map<std::string, bool> output_written_;                    // known output buffer -> written
  std::map<std::string, ir::DType> buf_dtype_;
  std::set<std::string> used_names_;
  std::size_t next_name_ = 0;
  interp::TensorMap params_;
  ir::Program prog_;
};

using OpHandler = std::function<void(Context&, const Node&)>;
using OpTable = std::map<std::string, OpHandler>;

// One registration function per op family (onnx/ops_*.cpp).
void register_elementwise_ops(OpTable& t);
void register_shape_ops(OpTable& t);
void register_linalg_ops(OpTable& t);
void register_conv_ops(OpTable& t);
void register_pool_ops(OpTable& t);
void register_reduce_ops(OpTable& t);
void register_norm_ops(OpTable& t);
void register_split_scatter_ops(OpTable& t);
void register_resize_ops(OpTable& t);
void register_rnn_ops(OpTable& t);
void register_loss_ops(OpTable& t);

/// Constant folding (onnx/fold.cpp): if every present input of `n` is a constant and the op is foldable, sets
/// its outputs as constants and returns true. Throws like the emitters on invalid attributes.
bool try_fold(Context& ctx, const Node& n);

// ---- shared shape helpers ----
/// numpy broadcast of two shapes; fails naming the node.
Shape broadcast_shapes(const Node& n, const Shape& a, const Shape& b);
/// Normalises an axis in [-rank, rank) to [0, rank); fails naming the node.
std::int64_t norm_axis(const Node& n, std::int64_t axis, std::int64_t rank);
std::int64_t numel_of(const Shape& s);
/// Element-wise numpy-broadcast index helper for constant evaluation: flat index in `in` for flat `i` in `out`.
std::int64_t bcast_flat(const Shape& out, const Shape& in, std::int64_t i);

}  // namespace steptp::frontend::onnx_detail
