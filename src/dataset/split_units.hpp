// Long built-in tasks split into subgraph tasks (DATASET.md §2.2 "Long built-in tasks").
//
// Rule: a built-in unit whose root task cannot give a sample within the S10 length limits (§7.3) is replaced by
// the subgraph tasks of task extraction (frontend/partition.hpp, as for --onnx models). A root cannot give one
// when, counted with the run's token rule,
//   * its prompt (system + user message) is over max_prompt_tokens, or
//   * an answer that writes its program once more, plus kReasoningReserve tokens of reasoning, is over
//     max_completion_tokens, or the prompt and that answer are over max_total_tokens.
// Each top-level nest of the root is one node of the partition (op ""; a reducing nest anchors a group), except
// that an attention core (a softmax and its product with V, STRATEGIES.md §11 entry 42's site) is one node of op
// Softmax (an anchor: the core starts its own piece). The
// pieces are units "<workload>__k#i" (i the instance index, k the task's index in the partition) of kind
// SubgraphTask, with the workload's suite, family and shape parameters; the workload's declared input ranges stay
// on the pieces' inputs; param and constant buffers are drawn as the whole task's are. A piece equal to an earlier
// unit's piece (alpha-canonical program and signature, as the partition dedups) is dropped: variants of one
// workload share their projections and attention core. A root that does not split
// (one group) or cannot be emitted stays a unit (S3 and the length limits reject it as before).
#pragma once
#include <cstdint>
#include <vector>

#include "dataset/units.hpp"
#include "step/config.hpp"
#include "step/tokens.hpp"

namespace steptp::dataset {

/// Tokens of reasoning an answer is assumed to need besides the program it writes.
inline constexpr std::int64_t kReasoningReserve = 512;

/// Whether a root task with these token counts cannot give a sample within `limits` (rule above).
bool root_too_long(std::int64_t prompt_tokens, std::int64_t program_tokens, const FilterConfig& limits);

/// Splits the too-long built-in units of `units` (rule above); the result stays sorted by (workload, index).
std::vector<Unit> split_long_units(std::vector<Unit> units, const FilterConfig& limits, const TokenCounter& tokens);

/// S1 + S2 as generate runs them: plan_units, then split_long_units with the run's token rule (gen.tokenizer).
std::vector<Unit> plan_all_units(const GenConfig& gen, const FilterConfig& limits, std::vector<Reject>& rejects);

}  // namespace steptp::dataset
