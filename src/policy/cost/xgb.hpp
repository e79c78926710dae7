// Internal to src/policy/cost/: RAII over the XGBoost C API handles, errors as std::runtime_error.
#pragma once
#include <xgboost/c_api.h>

#include <string>
#include <vector>

namespace steptp::policy::cost::xgb {

/// Throws std::runtime_error("<what>: <XGBGetLastError()>") when rc != 0.
void check(int rc, const std::string& what);

/// A dense float matrix (row-major, NaN = missing) with optional labels.
class Matrix {
 public:
  Matrix(const std::vector<float>& data, std::size_t rows, std::size_t cols);
  ~Matrix();
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  void set_labels(const std::vector<float>& y);
  /// Row groups for a ranking objective: sizes of consecutive runs of rows.
  void set_groups(const std::vector<unsigned>& sizes);
  /// Per-row starting value that the trees add to (XGBoost's base_margin).
  void set_base_margin(const std::vector<float>& m);
  DMatrixHandle handle() const { return h_; }

 private:
  DMatrixHandle h_ = nullptr;
};

/// A booster.
class Booster {
 public:
  explicit Booster(const Matrix* train = nullptr);  // with the training matrix, or empty (to load into)
  ~Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  void set(const std::string& name, const std::string& value);
  void update(int iteration, const Matrix& train);
  /// XGBoost's JSON model text.
  std::string save_json() const;
  void load_json(const std::string& text);
  /// Predictions for every row of m (one output per row).
  std::vector<float> predict(const Matrix& m) const;

 private:
  BoosterHandle h_ = nullptr;
};

}  // namespace steptp::policy::cost::xgb
