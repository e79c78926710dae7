// Internal to the interpreter: the compiled statements and loop nests (the closure tree's upper levels; expression
// nodes and the run-time context are in nodes.hpp). Built by compile.cpp, executed by interpreter.cpp (scalar) and
// batch.cpp (batched innermost loops). Not a public API.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interp/nodes.hpp"

namespace steptp::interp::detail {

// ------------------------------------------------------------------------------------------------ statements
struct ItemNode {
  virtual ~ItemNode() = default;
  virtual void exec(Ctx& c) const = 0;
};

/// A statement X[s] = e (LEIR.md §8.1 step 4). The base holds everything error messages and checked mode need.
struct StmtNode : ItemNode {
  int buf = 0;
  bool is_float = true;
  bool track_init = true;                  // target has an initialised map (always, targets are never inputs)
  bool has_init = false;                   // §8.4 initialiser
  std::vector<int> red_slots;              // reduction variables' slots
  double init_f = 0;                       // identity converted to T
  std::int64_t init_i = 0;
  FPtr rf;                                 // rhs converted to T (float targets)
  IPtr ri;                                 // rhs converted to T (integer/bool targets)
  Affine lhs_aff;                          // affine target address (when lhs_affine)
  bool lhs_affine = true;
  RefInfo lhs;                             // generic target address
  // diagnostics
  std::uint32_t offset = 0;
  std::string text;                        // canonical statement text
  std::vector<std::pair<std::string, int>> loop_vars;  // enclosing loops (name, slot), outermost first
  std::vector<int> b_axes;                 // checked mode: hardware axes (0..5) of enclosing B loops
  // batched execution of the innermost loop around this statement (planned by compile.cpp, run by batch.cpp)
  enum class BatchMode : std::uint8_t {
    None,  // scalar only
    Map,   // the target offset moves with the loop variable and the rhs reads the target only at that offset
    Fold   // the target offset is fixed and rhs = op(target, g) or op(g, target), g not reading the target
  };
  BatchMode batch = BatchMode::None;
  const FNode* fold_g = nullptr;           // Fold: g (owned by rf)
  FoldOp fold_op = FoldOp::Other;
  bool fold_target_left = true;            // Fold: op(target, g) rather than op(g, target)

  bool init_fires(const Ctx& c) const {
    for (int s : red_slots)
      if (c.vars[s] != 0) return false;
    return true;
  }
  void step(Ctx& c) const {
    c.cur = this;
    c.cur_elem = -1;
    if (++c.steps > c.limit) step_limit_reached(c);
  }
  /// Generic store path (used by the generic and checked statement variants).
  void exec_generic(Ctx& c) const;
  /// Runs every iteration of the loops L[0..m) (the m innermost loops of its nest, L[0] outermost) in scalar order,
  /// kBatch lanes at a time where possible (batch != None), one by one otherwise; leaves each variable at its
  /// extent as the scalar loops do.
  void run_loops_batched(Ctx& c, const LoopDesc* L, int m) const;
  /// One batch; false when it must be replayed in scalar order (a fault, any LeirError, scratch exhausted): the
  /// replay then redoes every store it made, to the same values.
  bool try_batch(Ctx& c, const Batch& b) const;
  bool batch_once(Ctx& c, const Batch& b) const;
};

/// Fast statement: affine target with NT terms, float or integer target.
template <int NT, bool Float>
struct StmtAff final : StmtNode {
  void exec(Ctx& c) const override {
    step(c);
    std::int64_t o = eval_affine<NT>(lhs_aff, c.vars);
    BufState& s = c.bufs[buf];
    if (static_cast<std::uint64_t>(o) >= static_cast<std::uint64_t>(s.numel)) raise_oob(c, buf, o);
    c.cur_elem = o;
    if constexpr (Float) {
      if (has_init && init_fires(c)) {
        s.f[o] = init_f;
        s.init[o] = 1;
      }
      s.f[o] = rf->f(c);
    } else {
      if (has_init && init_fires(c)) {
        s.i[o] = init_i;
        s.init[o] = 1;
      }
      s.i[o] = ri->i(c);
    }
    s.init[o] = 1;
  }
};
struct StmtGen final : StmtNode {
  void exec(Ctx& c) const override { exec_generic(c); }
};

/// One loop header of a compiled nest.
struct LoopDesc {
  int slot = 0;
  std::int64_t extent = 1;
  bool track_conflicts = false;  // checked mode: non-reducing P/V/B loop of extent > 1 (E306)
  int b_axis = -1;               // checked mode: hardware axis 0..5 of a B loop, else -1
};

struct NestNode final : ItemNode {
  std::vector<LoopDesc> loops;
  std::vector<std::unique_ptr<ItemNode>> body;
  const StmtNode* batched = nullptr;  // the single body statement, when it can run batched over the last loops
  int batch_loops = 0;                // how many innermost loops its batches span
  void exec(Ctx& c) const override {
    if (c.chk) run_checked(c, 0);
    else run(c, 0);
  }
  void run(Ctx& c, std::size_t lv) const {
    if (lv == loops.size()) {
      for (const auto& it : body) it->exec(c);
      return;
    }
    if (batched && lv + static_cast<std::size_t>(batch_loops) == loops.size() && c.batching) {
      batched->run_loops_batched(c, &loops[lv], batch_loops);
      return;
    }
    const LoopDesc& L = loops[lv];
    std::int64_t& v = c.vars[L.slot];
    if (lv + 1 == loops.size() && body.size() == 1) {
      const ItemNode* it = body[0].get();
      for (v = 0; v < L.extent; ++v) it->exec(c);
    } else {
      for (v = 0; v < L.extent; ++v) run(c, lv + 1);
    }
  }
  void run_checked(Ctx& c, std::size_t lv) const;  // checker.cpp
};

}  // namespace steptp::interp::detail
