// The cost model interface of the `cost` policy (DATASET.md §9.3): a score per program, lower = predicted faster.
// Two implementations: the analytical model (analytical.hpp) and a learned XGBoost model (learned.hpp) trained on
// a measured dataset by `steptp cost-model train`.
#pragma once
#include <memory>
#include <string>

#include "ir/task.hpp"
#include "policy/cost/analytical.hpp"

namespace steptp::policy::cost {

/// A cost model: lower score = predicted faster. score() is the predicted log2 latency in seconds of a program.
class CostModel {
 public:
  virtual ~CostModel() = default;
  virtual std::string name() const = 0;  // "analytical" or "xgboost:<file>"
  /// Throws ir::LeirError when `t` does not validate.
  virtual double score(const ir::Task& t) const = 0;
};

/// The analytical model on machine `m`: score = log2(analytical_estimate(t, m).seconds).
std::unique_ptr<CostModel> make_analytical_model(const MachineModel& m);

/// Loads a model written by train_learned_model (learned.hpp). Throws std::runtime_error naming the file on a bad
/// file (unreadable, not JSON, wrong format tag, features of another build, a booster XGBoost refuses).
std::unique_ptr<CostModel> load_cost_model(const std::string& path);

/// The held-out ranking evidence of a model file (its "train" report): which of the learned and the analytical
/// model ordered more of the held-out clear pairs (latencies >= 10% apart) right. `learned` is true when the
/// learned model did at least as well, or when the file holds no held-out clear pair (no evidence against it);
/// `why` says so in words. Throws like load_cost_model.
struct ModelChoice {
  bool learned = true;
  std::string why;
};
ModelChoice choose_model(const std::string& path);

}  // namespace steptp::policy::cost
