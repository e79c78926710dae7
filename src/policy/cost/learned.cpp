// The XGBoost wrapper (xgb.hpp) and the learned model's loader (model.hpp load_cost_model).
#include "policy/cost/learned.hpp"

#include <cmath>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "policy/cost/features.hpp"
#include "policy/cost/model.hpp"
#include "policy/cost/xgb.hpp"

namespace steptp::policy::cost {
namespace xgb {

void check(int rc, const std::string& what) {
  if (rc == 0) return;
  // XGBoost's message is "[hh:mm:ss] file:line: reason\nStack trace: ...": keep the reason, on one line
  std::string msg = XGBGetLastError();
  msg = msg.substr(0, msg.find('\n'));
  if (!msg.empty() && msg[0] == '[' && msg.find("] ") != std::string::npos) msg = msg.substr(msg.find("] ") + 2);
  throw std::runtime_error(what + ": " + msg);
}

Matrix::Matrix(const std::vector<float>& data, std::size_t rows, std::size_t cols) {
  check(XGDMatrixCreateFromMat(data.data(), rows, cols, std::nanf(""), &h_), "XGBoost: cannot create a matrix");
}
Matrix::~Matrix() {
  if (h_) XGDMatrixFree(h_);
}
void Matrix::set_labels(const std::vector<float>& y) {
  check(XGDMatrixSetFloatInfo(h_, "label", y.data(), y.size()), "XGBoost: cannot set labels");
}
void Matrix::set_base_margin(const std::vector<float>& m) {
  check(XGDMatrixSetFloatInfo(h_, "base_margin", m.data(), m.size()), "XGBoost: cannot set the base margin");
}
void Matrix::set_groups(const std::vector<unsigned>& sizes) {
  check(XGDMatrixSetUIntInfo(h_, "group", sizes.data(), sizes.size()), "XGBoost: cannot set groups");
}

Booster::Booster(const Matrix* train) {
  DMatrixHandle d[1] = {train ? train->handle() : nullptr};
  check(XGBoosterCreate(d, train ? 1 : 0, &h_), "XGBoost: cannot create a booster");
}
Booster::~Booster() {
  if (h_) XGBoosterFree(h_);
}
void Booster::set(const std::string& name, const std::string& value) {
  check(XGBoosterSetParam(h_, name.c_str(), value.c_str()), "XGBoost: parameter " + name);
}
void Booster::update(int iteration, const Matrix& train) {
  check(XGBoosterUpdateOneIter(h_, iteration, train.handle()), "XGBoost: training round failed");
}
std::string Booster::save_json() const {
  bst_ulong len = 0;
  const char* p = nullptr;
  check(XGBoosterSaveModelToBuffer(h_, R"({"format": "json"})", &len, &p), "XGBoost: cannot save the model");
  return std::string(p, len);
}
void Booster::load_json(const std::string& text) {
  check(XGBoosterLoadModelFromBuffer(h_, text.data(), text.size()), "XGBoost could not load the booster");
}
std::vector<float> Booster::predict(const Matrix& m) const {
  const bst_ulong* shape = nullptr;
  bst_ulong dim = 0;
  const float* out = nullptr;
  check(XGBoosterPredictFromDMatrix(h_, m.handle(),
                                    R"({"type": 0, "training": false, "iteration_begin": 0, "iteration_end": 0, )"
                                    R"("strict_shape": false})",
                                    &shape, &dim, &out),
        "XGBoost: prediction failed");
  std::size_t n = 1;
  for (bst_ulong i = 0; i < dim; ++i) n *= shape[i];
  return std::vector<float>(out, out + n);
}

}  // namespace xgb

namespace {

class LearnedModel : public CostModel {
 public:
  LearnedModel(std::string path, const MachineModel& m, const std::string& booster_json, double margin_scale,
               double scale, double offset)
      : path_(std::move(path)),
        m_(m),
        margin_scale_(margin_scale),
        scale_(scale),
        offset_(offset),
        ideal_at_(feature_index("ideal_s")),
        rel_at_(feature_index("rel_analytical_s")) {
    booster_.load_json(booster_json);
    booster_.set("nthread", "1");
  }
  std::string name() const override { return "xgboost:" + path_; }
  double score(const ir::Task& t) const override {
    const std::vector<double> f = program_features(t, m_);
    const std::vector<float> row(f.begin(), f.end());
    const xgb::Matrix x(row, 1, row.size());
    std::lock_guard<std::mutex> lock(mu_);  // one prediction at a time through the booster handle
    const double margin = margin_scale_ * std::log2(f.at(rel_at_));
    return scale_ * (booster_.predict(x).at(0) + margin) + offset_ + std::log2(f.at(ideal_at_));
  }

 private:
  std::string path_;
  MachineModel m_;
  double margin_scale_ = 0, scale_ = 1, offset_ = 0;
  std::size_t ideal_at_ = 0, rel_at_ = 0;
  xgb::Booster booster_;
  mutable std::mutex mu_;
};

}  // namespace

ModelChoice choose_model(const std::string& path) {
  load_cost_model(path);  // the same checks
  const core::ojson j = core::ojson::parse(ir::read_file(path));
  const core::ojson clear = j.contains("train") ? j["train"].value("pairwise_clear", core::ojson()) : core::ojson();
  auto acc = [&](const char* m) -> std::optional<double> {
    if (!clear.is_object() || !clear.contains(m) || clear[m].value("pairs", 0) <= 0) return std::nullopt;
    return clear[m].value("accuracy", 0.0);
  };
  const auto learned = acc("learned"), analytical = acc("analytical");
  ModelChoice c;
  if (!learned || !analytical) {
    c.why = "the model file reports no held-out clear pair";
    return c;
  }
  c.learned = *learned >= *analytical;
  c.why = fmt::format("held-out clear-pair accuracy: learned {:.1f}%, analytical {:.1f}% ({} pairs)", 100 * *learned,
                      100 * *analytical, clear["learned"].value("pairs", 0));
  return c;
}

std::unique_ptr<CostModel> load_cost_model(const std::string& path) {
  auto bad = [&](const std::string& why) { return std::runtime_error(path + ": not a steptp cost model (" + why + ")"); };
  const std::string text = ir::read_file(path);  // names the path when unreadable
  core::ojson j;
  try {
    j = core::ojson::parse(text);
  } catch (const std::exception& e) {
    throw bad(std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("format") || j["format"] != "steptp.cost-model/2")
    throw bad("format is not \"steptp.cost-model/2\"; retrain it");
  if (!j.contains("features") || !j["features"].is_array()) throw bad("no feature list");
  std::vector<std::string> names;
  for (const auto& n : j["features"]) {
    if (!n.is_string()) throw bad("a feature name is not a string");
    names.push_back(n.get<std::string>());
  }
  if (names != feature_names())
    throw bad("its " + std::to_string(names.size()) + " features differ from this build's " +
              std::to_string(feature_names().size()) + "; retrain it");
  if (!j.contains("booster") || !j["booster"].is_object()) throw bad("no booster object");
  const core::ojson target = j.value("target", core::ojson());
  auto number = [&](const char* k) { return target.is_object() && target.contains(k) && target[k].is_number(); };
  if (!number("margin_scale") || !number("scale") || !number("offset"))
    throw bad("no target object with a numeric margin_scale, scale and offset");
  MachineModel m;
  try {
    m = MachineModel::from_json(j.contains("machine") ? j["machine"] : core::ojson());
  } catch (const std::exception& e) {
    throw bad(e.what());
  }
  try {
    return std::make_unique<LearnedModel>(path, m, j["booster"].dump(), target["margin_scale"].get<double>(),
                                          target["scale"].get<double>(), target["offset"].get<double>());
  } catch (const std::exception& e) {
    throw bad(e.what());
  }
}

}  // namespace steptp::policy::cost
