#include "dataset/split_units.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "frontend/partition.hpp"
#include "ir/canon.hpp"
#include "ir/printer.hpp"
#include "strategies/analysis/softmax.hpp"
#include "step/checker.hpp"
#include "step/facts.hpp"
#include "step/prompt.hpp"
#include "step/reasoning.hpp"

namespace steptp::dataset {

bool root_too_long(std::int64_t prompt_tokens, std::int64_t program_tokens, const FilterConfig& limits) {
  const std::int64_t answer = program_tokens + kReasoningReserve;
  return prompt_tokens > limits.max_prompt_tokens || answer > limits.max_completion_tokens ||
         prompt_tokens + answer > limits.max_total_tokens;
}

namespace {

/// The partition of a built-in root task: each top-level nest one node, except that an attention core (a softmax
/// and its product with V, STRATEGIES.md §11 entry 42's site) is one node of op Softmax: it stays in one piece, which
/// its anchor starts (the scores' product stays in the piece before: a rewrite of the core alone is shorter).
frontend::Partition partition_root(const ir::Task& root, const std::string& workload) {
  std::map<std::size_t, std::size_t> cores;  // first nest -> one past the last
  for (const auto& a : strategy::analysis::match_attention(root)) {
    const std::size_t b = a.tri.pair.max.nest, e = std::size_t(a.mm) + 1;
    auto next = cores.lower_bound(b);
    const bool overlaps = (next != cores.end() && next->first < e) ||
                          (next != cores.begin() && std::prev(next)->second > b);
    if (!overlaps) cores[b] = e;
  }
  frontend::OnnxImport imp;
  imp.task = root;
  for (std::size_t n = 0; n < root.program.nests.size();) {
    auto c = cores.find(n);
    const std::size_t end = c == cores.end() ? n + 1 : c->second;
    imp.provenance.push_back({fmt::format("nests {}-{}", n, end - 1), c == cores.end() ? "" : "Softmax", n, end});
    n = end;
  }
  return frontend::partition_import(imp, workload);
}

/// The tasks a root gives under the rule above: nullopt when it fits (it stays whole); otherwise the tasks of its
/// partition, empty when it does not split. `prompt` and `program` are its token counts.
std::optional<std::vector<frontend::PartitionTask>> split_root(const ir::Task& root, const std::string& workload,
                                                               std::int64_t prompt, std::int64_t program,
                                                               const FilterConfig& limits) {
  if (!root_too_long(prompt, program, limits)) return std::nullopt;
  try {
    frontend::Partition part = partition_root(root, workload);
    if (part.tasks.size() >= 2) return std::move(part.tasks);
  } catch (const std::exception&) {
  }
  return std::vector<frontend::PartitionTask>{};
}

/// The pieces of unit `u` (empty when it stays whole).
std::vector<Unit> pieces_of(const Unit& u, const FilterConfig& limits, const TokenCounter& tokens,
                            std::int64_t system_tokens) {
  ir::Task root;
  try {
    root = emit_root_task(u);
  } catch (const std::exception&) {
    return {};  // S3 rejects it
  }
  const std::string leir = ir::print_program(root.program);
  const std::int64_t prompt = system_tokens + tokens.count(render_user(u.wl.name, leir, root.known, 1));
  auto split = split_root(root, u.wl.name, prompt, tokens.count(leir), limits);
  if (!split) return {};
  std::vector<Unit> out;
  for (auto& pt : *split) {
    Unit p = u;
    p.wl.name = pt.task.workload;
    p.wl.kind = SourceKind::SubgraphTask;
    p.wl.weight = pt.weight;
    pt.task.suite = u.wl.suite;
    p.wl.task = std::make_shared<const ir::Task>(std::move(pt.task));
    if (!pt.params.empty()) p.wl.params = std::make_shared<const interp::TensorMap>(std::move(pt.params));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

std::vector<Unit> split_long_units(std::vector<Unit> units, const FilterConfig& limits, const TokenCounter& tokens) {
  const std::int64_t system_tokens = tokens.count(render_system());
  std::vector<Unit> out;
  std::set<std::string> seen;  // canonical form and signature of the pieces kept so far
  bool split = false;
  for (auto& u : units) {
    std::vector<Unit> pieces;
    if (u.wl.kind == SourceKind::Builtin) pieces = pieces_of(u, limits, tokens, system_tokens);
    if (pieces.empty()) {
      out.push_back(std::move(u));
      continue;
    }
    split = true;
    for (auto& p : pieces)
      if (seen.insert(core::alpha_canonical(*p.wl.task) + "\n" + core::canonical_known_json(*p.wl.task)).second)
        out.push_back(std::move(p));
  }
  if (split)
    std::stable_sort(out.begin(), out.end(), [](const Unit& a, const Unit& b) {
      return a.wl.name != b.wl.name ? a.wl.name < b.wl.name : a.index < b.index;
    });
  return out;
}

std::vector<Unit> plan_all_units(const GenConfig& gen, const FilterConfig& limits, std::vector<Reject>& rejects) {
  const auto tokens = make_token_counter(gen.tokenizer);
  const std::int64_t system_tokens = tokens->count(render_system());
  auto prompt_tokens = [&](const ir::Task& t, const std::string& leir) {
    return system_tokens + tokens->count(render_user(t.workload, leir, t.known, 1));
  };
  RootPlan plan;
  plan.tasks = [&](const ir::Task& root) -> std::vector<ir::Task> {  // as pieces_of decides
    const std::string leir = ir::print_program(root.program);
    auto split = split_root(root, root.workload, prompt_tokens(root, leir), tokens->count(leir), limits);
    if (!split) return {root};
    std::vector<ir::Task> out;
    for (auto& pt : *split) out.push_back(std::move(pt.task));
    return out;
  };
  // The sample as S8-S9 render it (facts, reasoning, the answer), counted as S10 counts it.
  plan.fits = [&](const ir::Task& t, const strategy::StrategyInfo& s, const strategy::Candidate& c,
                  const strategy::Applied& a) {
    const std::string leir = ir::print_program(t.program), after = ir::print_program(a.task.program);
    const ojson facts = compute_facts(t, a.task, a.facts, c.id(), strategy::exactness_letter(a.cls),
                                      candidate_values(c));
    const std::string name(s.name);
    const std::string answer = render_assistant(render_reasoning(facts, name), {{name, after}});
    return !limits.too_long(prompt_tokens(t, leir), tokens->count(answer));
  };
  return split_long_units(plan_units(gen, rejects, plan), limits, *tokens);
}

}  // namespace steptp::dataset
