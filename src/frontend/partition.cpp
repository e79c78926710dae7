// Task extraction over an imported whole-model task (see partition.hpp): node dataflow from the nests' buffer
// accesses, FuseOps-style grouping, attention and prologue merges, then one renamed task per group, deduplicated by
// alpha-canonical form.
#include "frontend/partition.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "ir/canon.hpp"
#include "ir/validate.hpp"
#include "strategies/analysis/names.hpp"

namespace steptp::frontend {

std::string anchor_family(const std::string& op) {
  static const std::map<std::string, std::string> table = {
      {"Conv", "conv"},
      {"ConvTranspose", "conv"},
      {"MatMul", "matmul"},
      {"Gemm", "matmul"},
      {"Einsum", "matmul"},
      {"ReduceSum", "reduction"},
      {"ReduceMean", "reduction"},
      {"ReduceMax", "reduction"},
      {"ReduceMin", "reduction"},
      {"ReduceProd", "reduction"},
      {"ReduceL1", "reduction"},
      {"ReduceL2", "reduction"},
      {"ReduceLogSum", "reduction"},
      {"ReduceLogSumExp", "reduction"},
      {"ReduceSumSquare", "reduction"},
      {"ArgMax", "reduction"},
      {"ArgMin", "reduction"},
      {"InstanceNormalization", "norm"},
      {"LayerNormalization", "norm"},
      {"MaxPool", "pool"},
      {"AveragePool", "pool"},
      {"GlobalAveragePool", "pool"},
      {"GlobalMaxPool", "pool"},
      {"Softmax", "softmax"},
      {"LogSoftmax", "softmax"},
      {"CumSum", "scan"},
      // Recurrent layers (unrolled per time step): a family of their own, not "reduction" (their recurrent
      // matrix-vector nests reduce, but what characterises them is the chain over time).
      {"LSTM", "recurrent"},
      {"GRU", "recurrent"},
      {"RNN", "recurrent"},
      {"SoftmaxCrossEntropyLoss", "loss"},
      {"NegativeLogLikelihoodLoss", "loss"},
  };
  auto it = table.find(op);
  return it == table.end() ? std::string() : it->second;
}

namespace {

/// One ONNX node that emitted nests: the buffers its statements write and the ones they read from other nodes.
struct NodeInfo {
  const NodeNests* nn = nullptr;
  std::set<std::string> writes;
  std::set<std::string> reads;  // read but not written by this node
  std::set<std::string> reads_all;  // every buffer its statements read (accumulators included)
  std::string family;           // anchor family, "" for injective nodes
  double work = 0;              // statement executions of its nests (product of the enclosing loop extents)
};

/// A fused group: member nodes (indices into the node list, ascending).
struct Group {
  std::vector<std::size_t> nodes;
  int anchors = 0;
  std::string anchor_op;  // op type of the first anchor
  std::string family;     // family of the first anchor, "" while anchorless
  double work = 0;        // statement executions of its anchors
  bool attention = false;
  bool alive = true;
};

void collect_refs(const ir::Expr& e, std::set<std::string>& out) {
  ir::visit_expr(e, [&](const ir::Expr& x) {
    if (x.kind == ir::ExprKind::Ref) out.insert(x.text);
  });
}

/// Node dataflow of the validated whole-model program `p` (one pass over its statements; Stmt::reduction_vars
/// marks reducing statements).
std::vector<NodeInfo> node_infos(const OnnxImport& imp, const ir::Program& p, const std::string& model) {
  std::vector<NodeInfo> nodes;
  std::vector<std::size_t> node_of_nest(p.nests.size());
  std::size_t covered = 0;
  for (const auto& nn : imp.provenance) {
    if (nn.begin != covered || nn.end <= nn.begin || nn.end > p.nests.size())
      throw std::runtime_error(fmt::format("{}: the import's provenance does not cover nests [{}, {}) in order", model,
                                           nn.begin, nn.end));
    for (std::size_t n = nn.begin; n < nn.end; ++n) node_of_nest[n] = nodes.size();
    covered = nn.end;
    NodeInfo ni;
    ni.nn = &nn;
    ni.family = anchor_family(nn.op);
    nodes.push_back(std::move(ni));
  }
  if (covered != p.nests.size())
    throw std::runtime_error(fmt::format("{}: the import's provenance covers {} of {} nests", model, covered,
                                         p.nests.size()));
  std::vector<bool> reduces(nodes.size(), false);
  ir::for_each_stmt(p, [&](const ir::Stmt& s, const std::vector<const ir::Loop*>& loops, std::size_t top) {
    const std::size_t i = node_of_nest[top];
    NodeInfo& ni = nodes[i];
    double w = 1;
    for (const auto* l : loops) w *= double(l->extent);
    ni.work += w;
    ni.writes.insert(s.lhs.text);
    for (const auto& a : s.lhs.args) collect_refs(a, ni.reads_all);
    collect_refs(s.rhs, ni.reads_all);
    if (!s.reduction_vars.empty()) reduces[i] = true;
  });
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    for (const auto& b : nodes[i].reads_all)
      if (!nodes[i].writes.count(b)) nodes[i].reads.insert(b);
    if (nodes[i].family.empty() && reduces[i]) nodes[i].family = "reduction";
  }
  return nodes;
}

/// FuseOps-style grouping (partition.hpp "Rule").
class Grouper {
 public:
  explicit Grouper(const std::vector<NodeInfo>& nodes)
      : nodes_(nodes), group_of_(nodes.size()), prods_(nodes.size()), cons_(nodes.size()) {
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      for (const auto& b : nodes_[i].writes) writer_.emplace(b, i);  // first writer wins
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      std::set<std::size_t> ps;
      for (const auto& b : nodes_[i].reads) {
        auto it = writer_.find(b);
        if (it != writer_.end() && it->second != i) ps.insert(it->second);
      }
      prods_[i].assign(ps.rbegin(), ps.rend());
      for (std::size_t p : ps) cons_[p].push_back(i);
    }
  }

  std::vector<Group> run(const std::set<std::string>& graph_outputs) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) place(i);
    merge_attention();
    merge_prologues(graph_outputs);
    std::vector<Group> out;
    for (auto& g : groups_)
      if (g.alive) {
        std::sort(g.nodes.begin(), g.nodes.end());
        out.push_back(std::move(g));
      }
    std::sort(out.begin(), out.end(), [](const Group& a, const Group& b) { return a.nodes[0] < b.nodes[0]; });
    return out;
  }

 private:
  /// Producer nodes of node i (writers of what it reads), latest first.
  const std::vector<std::size_t>& producers(std::size_t i) const { return prods_[i]; }

  /// Groups with a placed node that reads what group g writes (excluding g).
  std::set<std::size_t> successors(std::size_t g) const {
    std::set<std::size_t> out;
    for (std::size_t i : groups_[g].nodes)
      for (std::size_t c : cons_[i])
        if (placed(c) && group_of_[c] != g) out.insert(group_of_[c]);
    return out;
  }

  /// Is there a path from group a to group b that passes through another group?
  bool path_via_other(std::size_t a, std::size_t b) const {
    std::vector<std::size_t> stack;
    std::set<std::size_t> seen;
    for (std::size_t s : successors(a))
      if (s != b) stack.push_back(s);
    while (!stack.empty()) {
      std::size_t g = stack.back();
      stack.pop_back();
      if (g == b) return true;
      if (!seen.insert(g).second) continue;
      for (std::size_t s : successors(g)) stack.push_back(s);
    }
    return false;
  }

  /// Merging a and b keeps the group graph acyclic iff neither reaches the other through a third group.
  bool can_merge(std::size_t a, std::size_t b) const { return !path_via_other(a, b) && !path_via_other(b, a); }

  bool placed(std::size_t i) const { return i < placed_; }

  void add(std::size_t g, std::size_t i) {
    groups_[g].nodes.push_back(i);
    group_of_[i] = g;
    const std::string& fam = nodes_[i].family;
    if (!fam.empty()) {
      groups_[g].work += nodes_[i].work;
      if (groups_[g].anchors++ == 0) {
        groups_[g].anchor_op = nodes_[i].nn->op;
        groups_[g].family = fam;
      }
    }
  }

  /// Would adding node i to group g close a cycle? (Another producer group of i reachable from g.)
  bool join_cycles(std::size_t g, std::size_t i) const {
    for (std::size_t p : producers(i)) {
      std::size_t pg = group_of_[p];
      if (pg != g && (successors(g).count(pg) || path_via_other(g, pg))) return true;
    }
    return false;
  }

  void place(std::size_t i) {
    const NodeInfo& n = nodes_[i];
    placed_ = i;  // producers are placed; i is not yet
    // A buffer written by an earlier node too: same group (never split one buffer's writes).
    for (const auto& b : n.writes) {
      auto it = writer_.find(b);
      if (it != writer_.end() && it->second < i) return finish_place(group_of_[it->second], i);
    }
    const std::vector<std::size_t>& prods = producers(i);
    if (!n.family.empty()) {
      if (n.family == "reduction")
        for (std::size_t p : prods) {
          Group& g = groups_[group_of_[p]];
          if (g.family == "reduction" && g.anchors == 1 && !g.attention && !join_cycles(group_of_[p], i))
            return finish_place(group_of_[p], i);
        }
      return finish_place(new_group(), i);
    }
    // Producer groups, the one whose anchors do the most work first, then the latest producer's.
    std::vector<std::size_t> cands;
    for (std::size_t p : prods)
      if (std::find(cands.begin(), cands.end(), group_of_[p]) == cands.end()) cands.push_back(group_of_[p]);
    std::stable_sort(cands.begin(), cands.end(),
                     [&](std::size_t a, std::size_t b) { return groups_[a].work > groups_[b].work; });
    for (std::size_t g : cands)
      if (!join_cycles(g, i)) return finish_place(g, i);
    finish_place(new_group(), i);
  }

  void finish_place(std::size_t g, std::size_t i) {
    add(g, i);
    placed_ = i + 1;
  }

  std::size_t new_group() {
    groups_.emplace_back();
    return groups_.size() - 1;
  }

  void merge(std::size_t into, std::size_t from) {
    for (std::size_t i : groups_[from].nodes) {
      groups_[into].nodes.push_back(i);
      group_of_[i] = into;
    }
    if (groups_[into].anchors == 0 && groups_[from].anchors > 0) {
      groups_[into].anchor_op = groups_[from].anchor_op;
      groups_[into].family = groups_[from].family;
    }
    groups_[into].anchors += groups_[from].anchors;
    groups_[into].work += groups_[from].work;
    groups_[from].nodes.clear();
    groups_[from].alive = false;
  }

  bool anchored_by(std::size_t g, const char* op) const {
    return groups_[g].alive && groups_[g].anchors == 1 && groups_[g].anchor_op == op;
  }

  void merge_attention() {
    for (std::size_t s = 0; s < groups_.size(); ++s) {
      if (!anchored_by(s, "Softmax")) continue;
      std::size_t sm = 0;  // the softmax node
      for (std::size_t i : groups_[s].nodes)
        if (nodes_[i].nn->op == "Softmax") sm = i;
      std::optional<std::size_t> m1, m2;
      for (std::size_t p : producers(sm))
        if (group_of_[p] != s && anchored_by(group_of_[p], "MatMul")) m1 = group_of_[p];
      for (std::size_t c : successors(s))
        if (anchored_by(c, "MatMul") && c != m1) m2 = c;
      if (!m1 || !m2 || !can_merge(*m1, s)) continue;
      merge(*m1, s);
      if (!can_merge(*m1, *m2)) continue;  // keep QK^T + softmax together at least
      merge(*m1, *m2);
      groups_[*m1].attention = true;
    }
  }

  void merge_prologues(const std::set<std::string>& graph_outputs) {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        if (!groups_[g].alive || groups_[g].anchors > 0) continue;
        bool writes_output = false;
        for (std::size_t i : groups_[g].nodes)
          for (const auto& b : nodes_[i].writes) writes_output |= graph_outputs.count(b) != 0;
        std::set<std::size_t> succ = successors(g);
        if (writes_output || succ.size() != 1) continue;
        std::size_t c = *succ.begin();
        merge(c, g);
        changed = true;
      }
    }
  }

  const std::vector<NodeInfo>& nodes_;
  std::vector<std::size_t> group_of_;
  std::map<std::string, std::size_t> writer_;
  std::vector<std::vector<std::size_t>> prods_;  // producer nodes, latest first
  std::vector<std::vector<std::size_t>> cons_;   // consumer nodes, ascending
  std::vector<Group> groups_;
  std::size_t placed_ = 0;
};

std::string group_family(const Group& g, const std::vector<NodeInfo>& nodes) {
  if (g.attention) return "attention";
  if (g.anchors == 0) return "elementwise";
  if (g.family == "reduction")
    for (std::size_t i : g.nodes)
      if (nodes[i].nn->op == "Sqrt") return "norm";
  return g.family;
}

/// Builds the standalone task of group g (partition.hpp "Known buffers").
struct TaskBuilder {
  const OnnxImport& imp;
  const ir::Analysis& whole;                      // analysis of the whole-model task (buffer dtypes and shapes)
  const std::vector<NodeInfo>& nodes;
  const std::map<std::string, std::set<std::size_t>>& reader_groups;  // buffer -> groups whose nodes read it

  PartitionTask build(const Group& g, std::size_t gi) const {
    PartitionTask out;
    ir::Task& t = out.task;
    std::map<std::string, ir::ValueRange> declared;
    for (const auto& k : imp.task.known)
      if (k.role == ir::Role::Input && k.range != ir::ValueRange::Any) declared[k.name] = k.range;
    std::set<std::string> writes;
    for (std::size_t i : g.nodes) writes.insert(nodes[i].writes.begin(), nodes[i].writes.end());
    for (std::size_t i : g.nodes)
      for (std::size_t n = nodes[i].nn->begin; n < nodes[i].nn->end; ++n) t.program.nests.push_back(imp.task.program.nests[n]);
    // Buffers in order of first occurrence in the group's program.
    std::vector<std::string> order;
    std::set<std::string> seen;
    ir::for_each_stmt(t.program, [&](const ir::Stmt& s, const std::vector<const ir::Loop*>&, std::size_t) {
      auto note = [&](const ir::Expr& e) {
        ir::visit_expr(e, [&](const ir::Expr& x) {
          if (x.kind == ir::ExprKind::Ref && seen.insert(x.text).second) order.push_back(x.text);
        });
      };
      for (const auto& a : s.lhs.args) note(a);
      note(s.rhs);
      if (seen.insert(s.lhs.text).second) order.push_back(s.lhs.text);
    });
    std::vector<ir::KnownBuffer> ins, consts, params, outs;
    std::vector<std::string> inters;
    for (const auto& b : order) {
      const ir::BufferInfo* bi = whole.find(b);
      if (!bi) throw std::logic_error("partition: buffer " + b + " missing from the whole-model analysis");
      ir::KnownBuffer k{b, ir::Role::Input, bi->dtype, bi->shape};
      if (auto d = declared.find(b); d != declared.end()) k.range = d->second;  // an input's declared range
      if (!writes.count(b)) {
        k.role = bi->known && (bi->role == ir::Role::Param || bi->role == ir::Role::Constant) ? bi->role
                                                                                                : ir::Role::Input;
        (k.role == ir::Role::Param ? params : k.role == ir::Role::Constant ? consts : ins).push_back(k);
      } else if (is_output(b, bi, gi)) {
        k.role = ir::Role::Output;
        outs.push_back(k);
      } else {
        inters.push_back(b);
      }
    }
    for (auto* v : {&ins, &consts, &params, &outs}) t.known.insert(t.known.end(), v->begin(), v->end());
    // Canonical names: known buffers in known order, then intermediates.
    std::map<std::string, std::string> rename;
    std::uint64_t next = 0;
    auto fresh = [&] {
      for (;;) {
        std::string s = strategy::analysis::tensor_name_at(next++);
        if (!strategy::analysis::is_reserved_tensor_name(s)) return s;
      }
    };
    for (auto& k : t.known) {
      std::string n = fresh();
      if (k.role == ir::Role::Param || k.role == ir::Role::Constant)
        if (auto v = imp.params.find(k.name); v != imp.params.end()) out.params[n] = v->second;
      rename[k.name] = n;
      k.name = n;
    }
    for (const auto& b : inters) rename[b] = fresh();
    ir::for_each_stmt_mut(t.program, [&](ir::Stmt& s, const std::vector<const ir::Loop*>&, std::size_t) {
      for (auto* e : {&s.lhs, &s.rhs})
        ir::visit_expr_mut(*e, [&](ir::Expr& x) {
          if (x.kind == ir::ExprKind::Ref) x.text = rename.at(x.text);
        });
    });
    t.suite = imp.task.suite;
    ir::validate_or_throw(t);
    ir::for_each_stmt(t.program, [&](const ir::Stmt&, const std::vector<const ir::Loop*>&, std::size_t) {
      ++out.statements;
    });
    return out;
  }

  /// Written in group gi: an output if a graph output, read by another group, or read by nobody.
  bool is_output(const std::string& b, const ir::BufferInfo* bi, std::size_t gi) const {
    if (bi->known && bi->role == ir::Role::Output) return true;
    auto it = reader_groups.find(b);
    if (it == reader_groups.end()) return true;
    return it->second.size() > 1 || !it->second.count(gi);
  }
};

}  // namespace

Partition partition_import(const OnnxImport& imp, const std::string& model) {
  Partition res;
  res.model = model;
  ir::Task whole_task = imp.task;
  ir::Analysis whole = ir::validate_or_throw(whole_task);
  std::vector<NodeInfo> nodes = node_infos(imp, whole_task.program, model);
  std::set<std::string> graph_outputs;
  for (const auto& k : imp.task.known)
    if (k.role == ir::Role::Output) graph_outputs.insert(k.name);
  std::vector<Group> groups = Grouper(nodes).run(graph_outputs);
  res.groups = groups.size();
  std::map<std::string, std::set<std::size_t>> reader_groups;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i : groups[g].nodes)
      for (const auto& b : nodes[i].reads_all) reader_groups[b].insert(g);
  TaskBuilder tb{imp, whole, nodes, reader_groups};
  std::map<std::string, std::size_t> by_key;  // canonical form -> index in res.tasks
  for (std::size_t g = 0; g < groups.size(); ++g) {
    PartitionTask pt = tb.build(groups[g], g);
    std::vector<std::string> names;
    for (std::size_t i : groups[g].nodes) names.push_back(nodes[i].nn->name);
    const std::string key = core::alpha_canonical(pt.task) + "\n" + core::canonical_known_json(pt.task);
    auto [it, fresh] = by_key.emplace(key, res.tasks.size());
    if (!fresh) {
      PartitionTask& first = res.tasks[it->second];
      ++first.weight;
      first.occurrences.push_back(std::move(names));
      continue;
    }
    pt.family = group_family(groups[g], nodes);
    pt.anchor = groups[g].anchor_op;
    pt.occurrences.push_back(std::move(names));
    pt.task.workload = fmt::format("{}__{}", model, res.tasks.size());
    res.tasks.push_back(std::move(pt));
  }
  return res;
}

}  // namespace steptp::frontend
