// The learned cost model: XGBoost gradient-boosted trees (C API) over features.hpp, predicting the log2 latency
// in seconds of a program, trained on the measured records of a `steptp generate` dataset (DATASET.md §4).
//
// Model file (JSON, written atomically):
//   {"format": "steptp.cost-model/2", "features": [names, in vector order], "machine": MachineModel::to_json(),
//    "booster": <XGBoost's own JSON model (XGBoosterSaveModelToBuffer, {"format": "json"})>,
//    "target": {"objective": "rank" | "regression", "scale": a, "offset": b}, "train": TrainReport::to_json()}
// The machine model is the one the features were computed with at training time; scoring uses it too. The score of
// a program is a * booster(features) + b + log2(ideal_s): the booster predicts log2(latency / ideal_s), a quantity
// that does not grow with the shape (ideal_s, features.hpp, is one lower bound for every program of a task).
//
// Training data: every record whose `measurement` is non-null (a search's measured.jsonl lines are such records:
// its trajectories, at the shapes searched). Each distinct program (its task JSON) has one latency: the median of
// its records' before.median_ns (as a before program) and after.median_ns (as an after program). A task (task_id
// of one records file) groups the programs measured in it; each (task, program) is a training row.
// Objective "rank" (the default): rank:pairwise within each task's group (relevance -log2(latency / ideal_s)),
// then a, b by least squares of log2(latency / ideal_s) on the booster's scores over the training rows, so that
// scores keep the scale of log2 seconds; "regression": squared error on log2(latency / ideal_s), a = 1, b = 0.
// Held out by workload: workload w is held out when derive(seed, "cost-model-holdout", {w}) / 2^64 < holdout_frac
// (base/hash.hpp), adjusted so that both sides have a workload when there are two or more. Deterministic: fixed
// seed, nthread = 1, exact tree method.
//
// Pairwise accuracy on held-out tasks: over the pairs of distinct programs of one task (the before program and
// the programs measured against it) whose measured latencies differ, the fraction the model orders like the
// measurement (an exact tie in the prediction counts 1/2); "clear" pairs are those whose measured latencies differ by
// at least 10% (the slower one >= 1.1 x the faster), the pairs a search must order right. "Record" accuracy: over held-out records, the fraction
// where the model orders before and after like that record's paired measurement (speedup > 1 or < 1).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "policy/cost/analytical.hpp"

namespace steptp::policy::cost {

struct TrainOptions {
  double holdout_frac = 0.2;  // fraction of workloads held out, in [0, 1)
  std::uint64_t seed = 0;     // hold-out draw and XGBoost seed
  int rounds = 200;           // boosting rounds
  int max_depth = 6;          // tree depth
  double eta = 0.1;           // learning rate
  std::string objective = "rank";  // "rank" (rank:pairwise, a group per task) or "regression" (squared error)
  bool analytical_margin = true;   // the trees start from the analytical model's log2(analytical_s / ideal_s)
  MachineModel machine;       // for the features (callers pass MachineModel::detect(1))
  /// When set: one JSON line per (task, program), {"task_id", "workload", "heldout", "measured_log2_s",
  /// "learned_log2_s", "analytical_log2_s", "program"} (written atomically), to plot or inspect the ranking.
  std::string predictions_path;
};

/// Pairwise accuracy counts of one model.
struct PairScore {
  double correct = 0;  // ties count 1/2
  std::int64_t pairs = 0;
  double accuracy() const { return pairs > 0 ? correct / static_cast<double>(pairs) : 0.0; }
};

struct TrainReport {
  std::string dataset;                      // the records files read, comma-separated
  std::int64_t records = 0, measured_records = 0, skipped_records = 0;  // skipped: a program failed to parse
  std::int64_t programs = 0, train_programs = 0, heldout_programs = 0;
  std::int64_t workloads = 0;
  std::vector<std::string> heldout_workloads;
  std::int64_t heldout_records = 0;
  double train_rmse = 0;                    // log2 seconds, learned model on its training rows
  PairScore learned_pairs, analytical_pairs;    // program pairs within held-out tasks
  PairScore learned_clear, analytical_clear;    // those of them whose latencies differ by >= 10%
  PairScore learned_records, analytical_records;  // before/after of held-out records
  core::ojson to_json() const;
};

/// Trains on every DATASET (a dataset directory, whose archive/all.jsonl is read; a `steptp search` output
/// directory, whose measured.jsonl is read; or a records .jsonl file; a task is a task_id of one file) and writes
/// the model file to `out_path`. Throws std::runtime_error on an unreadable or empty dataset (no measured record,
/// fewer than two programs to train on), a bad option, or an XGBoost failure.
TrainReport train_learned_model(const std::vector<std::string>& datasets, const std::string& out_path,
                                const TrainOptions& o);

}  // namespace steptp::policy::cost
