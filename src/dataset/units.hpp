// Workloads (S1), shape instances (S2), units and sharding (DATASET.md §2.1, §2.2, §10).
// A unit is (workload, instance index), written "Workload#i"; it is the unit of work, resumption and sharding.
#pragma once
#include <functional>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "step/config.hpp"
#include "base/json_text.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"
#include "strategies/registry.hpp"

namespace steptp::dataset {

/// Onnx: a whole imported model (--onnx-whole); SubgraphTask: one distinct task of a partitioned model
/// (frontend/partition.hpp, the default of --onnx) or of a built-in task too long for the length limits
/// (split_units.hpp).
enum class SourceKind { Builtin, Onnx, SubgraphTask, TaskFile };

/// One selected workload (S1).
struct WorkloadEntry {
  std::string name, suite, family;
  SourceKind kind = SourceKind::Builtin;
  std::string path;         // ONNX model or task file (relative as given); empty for built-ins
  std::size_t line = 0;     // task file line (1-based)
  int weight = 1;           // SubgraphTask: occurrences of the task in its model
  // SubgraphTask: the extracted task and the values of its param/constant buffers (the model's weights; null for a
  // built-in task's pieces, whose weights are drawn like the whole task's), shared by
  // the copies of the unit. S5 feeds the weights into every draw (make_reference); the audit's re-check, which has
  // only the record, draws them, so there the rewrite is checked for arbitrary weights.
  std::shared_ptr<const ir::Task> task;
  std::shared_ptr<const interp::TensorMap> params;
};

/// One unit: a workload plus a concrete shape instance.
struct Unit {
  WorkloadEntry wl;
  int index = 0;
  ojson params = ojson::object();   // parameter name -> integer value, catalogue order
  std::string dtype;                // "f32", ...
  std::uint64_t instance_seed = 0;  // derive(master, "instance", workload, i, attempt) of the accepted draw
  std::string name() const { return wl.name + "#" + std::to_string(index); }
};

/// A rejected unit, candidate or sample (rejects.jsonl line; DATASET.md §1).
struct Reject {
  std::string unit, strategy, stage, reason, detail;
  std::string family;  // the unit's workload family, for the S10 rejects decided before measuring (§7.2)
  /// An S1–S9 reject, or an S10 length reject that generate decided before measuring (detail "before measuring"):
  /// the rejects a dataset keeps beside its records; the filter's own S10 rejects are recomputed from the records.
  bool before_filter() const { return stage != "S10" || detail.rfind("before measuring", 0) == 0; }
  Reject() = default;
  Reject(std::string unit_, std::string strategy_, std::string stage_, std::string reason_, std::string detail_ = "",
         std::string family_ = "")
      : unit(std::move(unit_)), strategy(std::move(strategy_)), stage(std::move(stage_)), reason(std::move(reason_)),
        detail(std::move(detail_)), family(std::move(family_)) {}
  ojson to_json() const;
  static Reject from_json(const ojson& j);
};

/// How a run will generate a planned root task, for GenConfig::cover_strategies (DATASET.md §2.4): `tasks` gives
/// the tasks whose states become prompts (the root itself, or its split pieces when it is too long, §2.2; none when
/// it is too long and does not split), `fits` whether the sample of candidate `c` of strategy `s` at `task` (its
/// prompt, its facts' reasoning and the after program as the answer) fits the length limits (§7.3). Empty members:
/// the root itself, every sample fits.
struct RootPlan {
  std::function<std::vector<ir::Task>(const ir::Task& root)> tasks;
  std::function<bool(const ir::Task& task, const strategy::StrategyInfo& s, const strategy::Candidate& c,
                     const strategy::Applied& a)>
      fits;
};

/// S1 + S2: the selected workloads and their instances, sorted by (workload, index). Unselectable names are
/// reported as `unknown_workload`, skipped instances as `instance_over_budget` / `instance_duplicate`.
/// Throws std::invalid_argument for unreadable source files.
std::vector<Unit> plan_units(const GenConfig& cfg, std::vector<Reject>& rejects, const RootPlan& plan = {});

/// S3 emitter: the root task of a unit (not yet validated). Throws on emitter failure.
ir::Task emit_root_task(const Unit& u);

/// DATASET.md §10: shard of a unit = u64_le(first 8 bytes of H("steptp.shard/1", workload, i)) mod n.
std::uint32_t shard_of(const std::string& workload, int index, std::uint32_t n);

/// Workload family guessed from a name (for ONNX models and task files that carry none): matmul, conv, pool,
/// softmax, norm, reduction, scan, loss, attention, elementwise, or "fused" when several match.
std::string guess_family(const std::string& name);

/// The byte size of a known signature and whether any buffer/total exceeds the config's budgets.
bool within_budget(const ir::Task& t, const GenConfig& cfg);

}  // namespace steptp::dataset
