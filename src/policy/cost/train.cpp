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
#include "ir/printer.hpp"
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
  double log2_s = 0;                 // log2 of the median latency in seconds
  double log2_ideal = 0;             // log2 of the ideal_s feature; the target is log2_s - log2_ideal
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

/// A trained booster, its predictions on every program (margin included), and the map of learned.hpp "target".
struct Fit {
  std::string booster_json;
  std::vector<float> raw;
  double margin_scale = 0, scale = 1, offset = 0;
};

/// Least squares y ~ scale * x + offset over the training rows (the ranking objective's scores are on no scale).
void calibrate(Fit& f, const std::vector<float>& x, const std::vector<float>& y) {
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  const double n = static_cast<double>(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) mx += x[i] / n, my += y[i] / n;
  for (std::size_t i = 0; i < y.size(); ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  f.scale = sxx > 0 ? sxy / sxx : 0;
  f.offset = my - f.scale * mx;
}

/// Rows of one side of the split: features, targets log2(latency / ideal_s), the analytical margins
/// log2(analytical_s / ideal_s), and (training side) the group sizes.
struct Rows {
  std::vector<float> x, y, margin;
  std::vector<unsigned> groups;
  std::size_t size() const { return margin.size(); }
};

Fit fit_booster(const Rows& train_rows, const Rows& all, std::size_t cols, const TrainOptions& o) {
  const bool rank = o.objective == "rank";
  Fit f;
  f.margin_scale = o.analytical_margin ? (rank ? -1.0 : 1.0) : 0.0;
  XGBSetGlobalConfig(R"({"verbosity": 0})");
  xgb::Matrix train(train_rows.x, train_rows.size(), cols);
  std::vector<float> labels = train_rows.y, margin(train_rows.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (rank) labels[i] = -labels[i];  // relevance: higher = faster
    margin[i] = static_cast<float>(f.margin_scale * train_rows.margin[i]);
  }
  train.set_labels(labels);
  train.set_base_margin(margin);
  if (rank) train.set_groups(train_rows.groups);
  xgb::Booster booster(&train);
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"objective", rank ? "rank:pairwise" : "reg:squarederror"},
           {"tree_method", "exact"},
           {"nthread", "1"},
           {"seed", std::to_string(o.seed)},
           {"max_depth", std::to_string(o.max_depth)},
           {"eta", std::to_string(o.eta)},
           {"base_score", "0"},
           {"subsample", "1"},
           {"colsample_bytree", "1"}})
    booster.set(k, v);
  for (int i = 0; i < o.rounds; ++i) booster.update(i, train);
  f.booster_json = booster.save_json();
  auto with_margin = [&](const Rows& r) {  // booster output on rows without a margin, plus the margin
    std::vector<float> p = booster.predict(xgb::Matrix(r.x, r.size(), cols));
    for (std::size_t i = 0; i < p.size(); ++i) p[i] += static_cast<float>(f.margin_scale * r.margin[i]);
    return p;
  };
  if (rank) calibrate(f, with_margin(train_rows), train_rows.y);
  f.raw = with_margin(all);
  return f;
}

/// The --predictions file (learned.hpp TrainOptions::predictions_path).
void write_predictions(const std::string& path, const std::vector<Program>& progs,
                       const std::map<std::string, std::set<std::size_t>>& by_task) {
  std::string lines;
  for (const auto& [task_id, members] : by_task)
    for (std::size_t i : members) {
      const Program& p = progs[i];
      lines += core::ojson{{"task_id", task_id}, {"workload", p.workload}, {"heldout", p.heldout},
                           {"measured_log2_s", p.log2_s}, {"learned_log2_s", p.learned},
                           {"analytical_log2_s", p.analytical}, {"program", ir::print_program(p.task.program)}}
                   .dump() +
               "\n";
    }
  ir::write_file_atomic(path, lines);
}

/// The held-out pairwise accuracies of `rep` (learned.hpp): program pairs of held-out tasks, their clear ones, and
/// the held-out records' directions.
void score_heldout(const std::vector<Program>& progs, const std::map<std::string, std::set<std::size_t>>& by_task,
                   const std::map<std::string, std::vector<RecordPair>>& rec_pairs, const std::set<std::string>& held,
                   TrainReport& rep) {
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
  for (const auto& w : held) {
    const auto it = rec_pairs.find(w);
    if (it == rec_pairs.end()) continue;
    for (const auto& rp : it->second) {
      ++rep.heldout_records;
      const Program &b = progs[rp.before], &a = progs[rp.after];
      score_pair(rep.learned_records, rp.before_ns, rp.after_ns, b.learned, a.learned);
      score_pair(rep.analytical_records, rp.before_ns, rp.after_ns, b.analytical, a.analytical);
    }
  }
}

/// The distinct programs of the records read so far, the programs measured within each task and the record
/// pairs of each workload.
struct Corpus {
  std::vector<Program> progs;
  std::map<std::string, std::size_t> index;                  // task JSON -> program
  std::map<std::string, std::set<std::size_t>> by_task;      // task_id -> programs measured within it
  std::map<std::string, std::vector<RecordPair>> rec_pairs;  // workload -> record pairs

  std::size_t intern(ir::Task t) {
    const std::string key = ir::task_to_json(t);
    const auto it = index.find(key);
    if (it != index.end()) return it->second;
    index[key] = progs.size();
    Program p;
    p.workload = t.workload;
    p.task = std::move(t);
    progs.push_back(std::move(p));
    return progs.size() - 1;
  }
};

/// The two medians of a record's measurement, when it has them as numbers.
bool record_latencies(const core::ojson& r, double& before_ns, double& after_ns) {
  if (!r.contains("measurement") || !r["measurement"].is_object()) return false;
  const auto& m = r["measurement"];
  if (!m.contains("before") || !m.contains("after") || !m["before"].contains("median_ns") ||
      !m["after"].contains("median_ns") || !m["before"]["median_ns"].is_number() ||
      !m["after"]["median_ns"].is_number())
    return false;
  before_ns = m["before"]["median_ns"].get<double>();
  after_ns = m["after"]["median_ns"].get<double>();
  return true;
}

/// Adds the measured records of one JSONL file to `c` (a bad line is D003 at FILE:LINE); counts them in `rep`.
void read_records(const std::string& file, Corpus& c, TrainReport& rep) {
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
    double bn = 0, an = 0;
    if (!record_latencies(r, bn, an)) continue;
    ++rep.measured_records;
    std::size_t b = 0, a = 0;
    try {
      b = c.intern(dataset::record_task(r, false));
      a = c.intern(dataset::record_task(r, true));
    } catch (const std::exception&) {
      ++rep.skipped_records;
      continue;
    }
    if (!(bn > 0) || !(an > 0)) {
      ++rep.skipped_records;
      continue;
    }
    c.progs[b].latencies_ns.push_back(bn);
    c.progs[a].latencies_ns.push_back(an);
    const std::string task_id = file + "#" + r.value("task_id", std::string());  // a task of one file
    c.by_task[task_id].insert(b);
    c.by_task[task_id].insert(a);
    c.rec_pairs[c.progs[b].workload].push_back({b, a, bn, an});
  }
}

/// Targets, features and the analytical estimate of every program (`all`), and the training rows: one per (task,
/// program measured in it) of the tasks not held out, grouped by task for the ranking objective.
void featurize(Corpus& c, const std::set<std::string>& held, const TrainOptions& o, Rows& all, Rows& train_rows,
               TrainReport& rep) {
  const std::size_t cols = feature_names().size();
  const std::size_t ideal_at = feature_index("ideal_s"), analytical_at = feature_index("analytical_s");
  for (auto& p : c.progs) {
    p.log2_s = std::log2(median(p.latencies_ns) * 1e-9);
    p.heldout = held.count(p.workload) > 0;
    const std::vector<double> f = program_features(p.task, o.machine);
    p.analytical = std::log2(f[analytical_at]);
    p.log2_ideal = std::log2(f[ideal_at]);
    for (double x : f) all.x.push_back(static_cast<float>(x));
    all.margin.push_back(static_cast<float>(p.analytical - p.log2_ideal));
    if (p.heldout) ++rep.heldout_programs;
  }
  for (const auto& [task_id, members] : c.by_task) {
    if (members.empty() || c.progs[*members.begin()].heldout) continue;
    for (std::size_t i : members) {
      train_rows.x.insert(train_rows.x.end(), all.x.begin() + i * cols, all.x.begin() + (i + 1) * cols);
      train_rows.y.push_back(static_cast<float>(c.progs[i].log2_s - c.progs[i].log2_ideal));
      train_rows.margin.push_back(all.margin[i]);
    }
    train_rows.groups.push_back(static_cast<unsigned>(members.size()));
  }
  rep.programs = static_cast<std::int64_t>(c.progs.size());
  rep.train_programs = rep.programs - rep.heldout_programs;
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
  Corpus c;
  for (const auto& d : datasets) {
    const std::string file = records_file(d);
    rep.dataset += (rep.dataset.empty() ? "" : ", ") + file;
    read_records(file, c, rep);
  }
  if (c.progs.empty()) throw std::runtime_error(rep.dataset + ": no measured record (generate with measurement)");

  std::set<std::string> workloads;
  for (const auto& p : c.progs) workloads.insert(p.workload);
  rep.workloads = static_cast<std::int64_t>(workloads.size());
  const std::set<std::string> held = holdout(workloads, o);
  rep.heldout_workloads.assign(held.begin(), held.end());
  const std::size_t cols = feature_names().size();
  Rows all, train_rows;
  featurize(c, held, o, all, train_rows, rep);
  if (train_rows.size() < 2) throw std::runtime_error(rep.dataset + ": fewer than two programs to train on");

  const Fit fit = fit_booster(train_rows, all, cols, o);
  double sq = 0;
  for (std::size_t i = 0; i < c.progs.size(); ++i) {
    Program& p = c.progs[i];
    p.learned = fit.scale * fit.raw.at(i) + fit.offset + p.log2_ideal;
    if (!p.heldout) sq += (p.learned - p.log2_s) * (p.learned - p.log2_s);
  }
  rep.train_rmse = std::sqrt(sq / static_cast<double>(std::max<std::int64_t>(1, rep.train_programs)));

  if (!o.predictions_path.empty()) write_predictions(o.predictions_path, c.progs, c.by_task);
  score_heldout(c.progs, c.by_task, c.rec_pairs, held, rep);

  core::ojson file;
  file["format"] = "steptp.cost-model/2";
  file["features"] = feature_names();
  file["machine"] = o.machine.to_json();
  file["booster"] = core::ojson::parse(fit.booster_json);
  file["target"] = {{"objective", o.objective}, {"margin_scale", fit.margin_scale}, {"scale", fit.scale},
                    {"offset", fit.offset}};
  file["train"] = rep.to_json();
  ir::write_file_atomic(out_path, file.dump() + "\n");
  return rep;
}

}  // namespace steptp::policy::cost
