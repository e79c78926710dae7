// train_learned_model (learned.hpp): records -> distinct programs -> XGBoost, and the held-out pairwise report.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "base/hash.hpp"
#include "step/dataset_dir.hpp"
#include "step/record.hpp"
#include "ir/task.hpp"
#include "policy/cost/features.hpp"
#include "policy/cost/learned.hpp"
#include "policy/cost/xgb.hpp"

namespace steptp::policy::cost {
namespace {

struct Program {
  ir::Task task;
  std::string workload;
  std::vector<double> latencies_ns;  // one per record that measured it
  double log2_s = 0;                 // target: log2 of the median latency in seconds
  bool heldout = false;
  double learned = 0, analytical = 0;  // predicted log2 seconds
};

struct RecordPair {
  std::size_t before = 0, after = 0;  // program indices
  double before_ns = 0, after_ns = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string records_file(const std::string& dataset) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(dataset, ec) && fs::exists(fs::path(dataset) / "measured.jsonl", ec) &&
      !fs::exists(fs::path(dataset) / "archive", ec))
    return dataset::require_file(dataset, "measured.jsonl", "the measured programs of a steptp search output");
  if (fs::is_directory(dataset, ec))
    return dataset::require_file(dataset, "archive/all.jsonl", "the records file of a steptp generate output");
  if (!fs::exists(dataset, ec))
    throw dataset::DatasetDirError(Code::D001, dataset, "no such dataset directory or records file");
  return dataset;
}

/// A "clear" pair's latencies differ by at least 10%: |log2 a - log2 b| >= log2(1.1).
constexpr double kClearLog2 = 0.137503523749935;

/// Adds one pair's outcome to `s`: +1 when the prediction orders the two like the measurement, 1/2 on a tie.
void score_pair(PairScore& s, double meas_a, double meas_b, double pred_a, double pred_b) {
  if (meas_a == meas_b) return;
  ++s.pairs;
  if (pred_a == pred_b) s.correct += 0.5;
  else if ((meas_a < meas_b) == (pred_a < pred_b)) s.correct += 1;
}

core::ojson pair_json(const PairScore& s) {
  return core::ojson{{"pairs", s.pairs}, {"correct", s.correct}, {"accuracy", s.accuracy()}};
}

/// Held-out workloads: the hash draw of learned.hpp, with at least one workload on each side when possible.
std::set<std::string> holdout(const std::set<std::string>& workloads, const TrainOptions& o) {
  std::vector<std::pair<double, std::string>> draws;
  for (const auto& w : workloads)
    draws.emplace_back(static_cast<double>(core::derive(o.seed, "cost-model-holdout", {w})) / 18446744073709551616.0, w);
  std::sort(draws.begin(), draws.end());
  std::set<std::string> out;
  for (const auto& [u, w] : draws)
    if (u < o.holdout_frac) out.insert(w);
  if (o.holdout_frac > 0 && out.empty() && draws.size() >= 2) out.insert(draws.front().second);
  if (out.size() == workloads.size() && draws.size() >= 2) out.erase(draws.back().second);
  return out;
}

}  // namespace

core::ojson TrainReport::to_json() const {
  return core::ojson{{"dataset", dataset},
                     {"records", records},
                     {"measured_records", measured_records},
                     {"skipped_records", skipped_records},
                     {"programs", programs},
                     {"train_programs", train_programs},
                     {"heldout_programs", heldout_programs},
                     {"workloads", workloads},
                     {"heldout_workloads", heldout_workloads},
                     {"heldout_records", heldout_records},
                     {"train_rmse_log2", train_rmse},
                     {"pairwise", {{"learned", pair_json(learned_pairs)}, {"analytical", pair_json(analytical_pairs)}}},
                     {"pairwise_clear",
                      {{"learned", pair_json(learned_clear)}, {"analytical", pair_json(analytical_clear)}}},
                     {"record_direction",
                      {{"learned", pair_json(learned_records)}, {"analytical", pair_json(analytical_records)}}}};
}

TrainReport train_learned_model(const std::vector<std::string>& datasets, const std::string& out_path,
                                const TrainOptions& o) {
  if (!(o.holdout_frac >= 0 && o.holdout_frac < 1)) throw std::runtime_error("--holdout-frac must be in [0, 1)");
  if (o.rounds < 1) throw std::runtime_error("--rounds must be at least 1");
  if (o.max_depth < 1) throw std::runtime_error("--max-depth must be at least 1");
  if (datasets.empty()) throw std::runtime_error("no dataset to train on");
  TrainReport rep;
  std::vector<std::string> files;
  for (const auto& d : datasets) {
    files.push_back(records_file(d));
    rep.dataset += (rep.dataset.empty() ? "" : ", ") + files.back();
  }

  // ---- distinct programs and their measurements ----
  std::vector<Program> progs;
  std::map<std::string, std::size_t> index;  // task JSON -> program
  std::map<std::string, std::set<std::size_t>> by_task;  // task_id -> programs measured within it
  std::map<std::string, std::vector<RecordPair>> rec_pairs;  // workload -> record pairs
  auto intern = [&](ir::Task t) {
    const std::string key = ir::task_to_json(t);
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    index[key] = progs.size();
    Program p;
    p.workload = t.workload;
    p.task = std::move(t);
    progs.push_back(std::move(p));
    return progs.size() - 1;
  };
  for (const std::string& file : files) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file + ": cannot read");
  std::size_t line_no = 0;
  for (std::string line; ir::getline_bounded(in, line, file);) {
    ++line_no;
    if (line.empty()) continue;
    ++rep.records;
    core::ojson r;
    try {
      r = core::ojson::parse(line);
    } catch (const std::exception&) {
      throw dataset::DatasetDirError(Code::D003, file + ":" + std::to_string(line_no), "not a JSON line");
    }
    if (!r.contains("measurement") || !r["measurement"].is_object()) continue;
    const auto& m = r["measurement"];
    if (!m.contains("before") || !m.contains("after") || !m["before"].contains("median_ns") ||
        !m["after"].contains("median_ns") || !m["before"]["median_ns"].is_number() ||
        !m["after"]["median_ns"].is_number())
      continue;
    ++rep.measured_records;
    std::size_t b = 0, a = 0;
    try {
      b = intern(dataset::record_task(r, false));
      a = intern(dataset::record_task(r, true));
    } catch (const std::exception&) {
      ++rep.skipped_records;
      continue;
    }
    const double bn = m["before"]["median_ns"].get<double>(), an = m["after"]["median_ns"].get<double>();
    if (!(bn > 0) || !(an > 0)) {
      ++rep.skipped_records;
      continue;
    }
    progs[b].latencies_ns.push_back(bn);
    progs[a].latencies_ns.push_back(an);
    const std::string task_id = file + "#" + r.value("task_id", std::string());  // a task of one file
    by_task[task_id].insert(b);
    by_task[task_id].insert(a);
    rec_pairs[progs[b].workload].push_back({b, a, bn, an});
  }
  }
  if (progs.empty()) throw std::runtime_error(rep.dataset + ": no measured record (generate with measurement)");

  // ---- split, features, targets ----
  std::set<std::string> workloads;
  for (const auto& p : progs) workloads.insert(p.workload);
  rep.workloads = static_cast<std::int64_t>(workloads.size());
  const std::set<std::string> held = holdout(workloads, o);
  rep.heldout_workloads.assign(held.begin(), held.end());
  const std::vector<std::string>& names = feature_names();
  std::vector<float> xtrain, xall, ytrain;
  for (auto& p : progs) {
    p.log2_s = std::log2(median(p.latencies_ns) * 1e-9);
    p.heldout = held.count(p.workload) > 0;
    const std::vector<double> f = program_features(p.task, o.machine);
    p.analytical = std::log2(f[std::find(names.begin(), names.end(), "analytical_s") - names.begin()]);
    for (double x : f) xall.push_back(static_cast<float>(x));
    if (p.heldout) {
      ++rep.heldout_programs;
      continue;
    }
    for (double x : f) xtrain.push_back(static_cast<float>(x));
    ytrain.push_back(static_cast<float>(p.log2_s));
  }
  rep.programs = static_cast<std::int64_t>(progs.size());
  rep.train_programs = static_cast<std::int64_t>(ytrain.size());
  if (ytrain.size() < 2) throw std::runtime_error(rep.dataset + ": fewer than two programs to train on");

  // ---- XGBoost ----
  XGBSetGlobalConfig(R"({"verbosity": 0})");
  xgb::Matrix train(xtrain, ytrain.size(), names.size());
  train.set_labels(ytrain);
  xgb::Booster booster(&train);
  double mean = 0;
  for (float y : ytrain) mean += y;
  mean /= static_cast<double>(ytrain.size());
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"objective", "reg:squarederror"},
           {"tree_method", "exact"},
           {"nthread", "1"},
           {"seed", std::to_string(o.seed)},
           {"max_depth", std::to_string(o.max_depth)},
           {"eta", std::to_string(o.eta)},
           {"base_score", std::to_string(mean)},
           {"subsample", "1"},
           {"colsample_bytree", "1"}})
    booster.set(k, v);
  for (int i = 0; i < o.rounds; ++i) booster.update(i, train);
  const std::string booster_json = booster.save_json();

  const xgb::Matrix all(xall, progs.size(), names.size());
  const std::vector<float> pred = booster.predict(all);
  double sq = 0;
  for (std::size_t i = 0; i < progs.size(); ++i) {
    progs[i].learned = pred.at(i);
    if (!progs[i].heldout) sq += (progs[i].learned - progs[i].log2_s) * (progs[i].learned - progs[i].log2_s);
  }
  rep.train_rmse = std::sqrt(sq / static_cast<double>(ytrain.size()));

  // ---- held-out pairwise accuracy ----
  for (const auto& [task_id, members] : by_task) {
    const std::vector<std::size_t> v(members.begin(), members.end());
    if (v.empty() || !progs[v.front()].heldout) continue;
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = i + 1; j < v.size(); ++j) {
        const Program &a = progs[v[i]], &b = progs[v[j]];
        score_pair(rep.learned_pairs, a.log2_s, b.log2_s, a.learned, b.learned);
        score_pair(rep.analytical_pairs, a.log2_s, b.log2_s, a.analytical, b.analytical);
        if (std::abs(a.log2_s - b.log2_s) >= kClearLog2) {
          score_pair(rep.learned_clear, a.log2_s, b.log2_s, a.learned, b.learned);
          score_pair(rep.analytical_clear, a.log2_s, b.log2_s, a.analytical, b.analytical);
        }
      }
  }
  for (const auto& w : held)
    for (const auto& rp : rec_pairs[w]) {
      ++rep.heldout_records;
      const Program &b = progs[rp.before], &a = progs[rp.after];
      score_pair(rep.learned_records, rp.before_ns, rp.after_ns, b.learned, a.learned);
      score_pair(rep.analytical_records, rp.before_ns, rp.after_ns, b.analytical, a.analytical);
    }

  // ---- the model file ----
  core::ojson file;
  file["format"] = "steptp.cost-model/1";
  file["features"] = names;
  file["machine"] = o.machine.to_json();
  file["booster"] = core::ojson::parse(booster_json);
  file["train"] = rep.to_json();
  ir::write_file_atomic(out_path, file.dump() + "\n");
  return rep;
}

}  // namespace steptp::policy::cost
