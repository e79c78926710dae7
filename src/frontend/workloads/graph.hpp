// Emitter toolkit for the built-in workload suite: a small tensor-graph builder that allocates buffer names
// exactly like the Step-TP reference translator and prints LEIR nests in its conventions.
//
// Naming (LEIR.md §5.1, reference `rename`): when the graph is finished, names are handed out from the fresh-name
// sequence A C D … Z Aa Ac … in the order inputs, intermediates (node outputs in creation order), outputs,
// constants, params; every temporary an op needs while printing (`Graph::temp`) takes the next name after that,
// in emission order. Loop conventions: the first dimension of an iterated shape is bound to `tx`
// (`B^{n}_{tx=0}`), the others are `L` loops named a c d f g … (LEIR.md §5 loop-variable sequence); a 0-d nest
// is `B^{1}_{tx=0}`.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/dtype.hpp"
#include "ir/task.hpp"

namespace steptp::frontend::wl {

using Shape = std::vector<std::int64_t>;

/// n-th fresh buffer name (0→A, 19→Z, 20→Aa, 40→Ca; LEIR.md §5.1).
std::string buffer_name(int index);
/// n-th fresh loop variable (0→a, 18→w, 19→aa; LEIR.md §5).
std::string loop_var(int index);
/// Python-style literal text of a double (`0.01`, `-1.0`, `1e-05`).
std::string flit(double v);
/// Decimal text of an integer.
std::string ilit(std::int64_t v);
std::int64_t numel(const Shape& s);

/// A buffer as seen while printing: its name, dtype and shape.
struct Buf {
  std::string name;
  ir::DType dt = ir::DType::F32;
  Shape shape;
};
/// `Name^{dt,g}_{s0,s1}` (no subscript when `subs` is empty).
std::string ref(const Buf& b, const std::vector<std::string>& subs);
std::string ref(const std::string& name, ir::DType dt, const std::vector<std::string>& subs);

/// One loop header.
struct Lp {
  char kind = 'L';
  std::int64_t ext = 1;
  std::string var;
};

/// Loop headers over a shape plus the subscript of each dimension. `tx_dim` (default 0) is the dimension bound
/// to `tx`; the other dimensions get a c d … in dimension order. `add` appends an `L` loop with the next free
/// variable and returns that variable.
struct Grid {
  std::vector<Lp> loops;
  std::vector<std::string> idx;
  int next_var = 0;
  std::string add(std::int64_t ext);
};
Grid grid(const Shape& s, int tx_dim = 0);

/// Subscripts reading a tensor of shape `in` broadcast (right-aligned) into an iteration with subscripts `out_idx`
/// over `out` shape: size-1 dimensions that are broadcast read index 0.
std::vector<std::string> bcast_idx(const Shape& in, const Shape& out, const std::vector<std::string>& out_idx);

/// Handle of a graph tensor.
struct T {
  int id = -1;
};

class Graph {
 public:
  enum class Kind { Input, Intermediate, Output, Constant, Param };
  explicit Graph(ir::DType dt) : dt_(dt) {}
  ir::DType dt() const { return dt_; }

  // ---- building (before finish) ----
  T input(Shape s) { return add(Kind::Input, std::move(s), dt_); }
  T input(Shape s, ir::DType dt) { return add(Kind::Input, std::move(s), dt); }
  /// An input of the graph dtype whose values the real operator only takes in `r` (probabilities, scales, rates):
  /// the known entry declares it (ir::KnownBuffer::range), for sign analysis and the equivalence draws.
  T input(Shape s, ir::ValueRange r) {
    T t = add(Kind::Input, std::move(s), dt_);
    tensors_.back().range = r;
    return t;
  }
  T constant(Shape s) { return add(Kind::Constant, std::move(s), dt_); }
  T constant(Shape s, ir::DType dt) { return add(Kind::Constant, std::move(s), dt); }
  T param(Shape s) { return add(Kind::Param, std::move(s), dt_); }
  /// A node output (intermediate until marked as output). Node tensors are named in creation order.
  T node(Shape s) { return add(Kind::Intermediate, std::move(s), dt_); }
  T node(Shape s, ir::DType dt) { return add(Kind::Intermediate, std::move(s), dt); }
  void mark_output(T t);
  const Shape& shape(T t) const { return tensors_.at(t.id).shape; }
  ir::DType dtype(T t) const { return tensors_.at(t.id).dt; }
  /// Records an emission step, run by finish() in recording order.
  void step(std::function<void(Graph&)> f) { steps_.push_back(std::move(f)); }

  /// Names all tensors, runs the steps and returns the LEIR text; `known` gets the signature (inputs, constants,
  /// params, outputs; each group in creation order). Throws std::logic_error if no output was marked.
  std::string finish(std::vector<ir::KnownBuffer>& known);

  // ---- printing (inside steps) ----
  Buf buf(T t) const;
  /// Next fresh name (a temporary intermediate of dtype `dt`, default the graph dtype).
  Buf temp(Shape s = {});
  Buf temp(Shape s, ir::DType dt);
  /// Appends one top-level nest: headers, then `[s1;s2;…];`.
  void nest(const std::vector<Lp>& loops, const std::vector<std::string>& stmts);

 private:
  struct Tensor {
    Kind kind;
    Shape shape;
    ir::DType dt;
    std::string name;
    ir::ValueRange range = ir::ValueRange::Any;
  };
  T add(Kind k, Shape s, ir::DType dt);
  ir::DType dt_;
  std::vector<Tensor> tensors_;
  std::vector<std::function<void(Graph&)>> steps_;
  std::vector<int> out_order_;
  int next_name_ = 0;
  std::string text_;
};

}  // namespace steptp::frontend::wl
