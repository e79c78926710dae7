#include "dataset/remeasure.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "ir/canon.hpp"
#include "step/config.hpp"
#include "step/dataset_dir.hpp"
#include "dataset/export.hpp"
#include "base/hash.hpp"
#include "step/record.hpp"
#include "base/rng.hpp"
#include "step/timing.hpp"
#include "dataset/unit_pipeline.hpp"
#include "ir/task.hpp"

namespace fs = std::filesystem;

namespace steptp::dataset {

std::string speedup_verdict(double s) { return s > 1.05 ? "faster" : s < 0.95 ? "slower" : "neutral"; }

ojson RemeasureReport::to_json() const {
  ojson c = ojson::object();
  for (const auto& [a, m] : counts)
    for (const auto& [b, n] : m) c[a][b] = n;
  ojson rs = ojson::array();
  for (const auto& r : rows) {
    ojson j{{"record_id", r.record_id}, {"strategy", r.strategy}, {"recorded", r.recorded},
            {"remeasured", r.remeasured}, {"recorded_noisy", r.recorded_noisy}, {"remeasured_noisy", r.remeasured_noisy},
            {"kept", r.kept()}};
    if (!r.error.empty()) j["error"] = r.error;
    rs.push_back(j);
  }
  return {{"measured_records", measured_records}, {"remeasured", rows.size()}, {"kept", kept}, {"failed", failed},
          {"kept_share", kept_share()}, {"verdicts", c}, {"rows", rs}};
}

RemeasureReport remeasure(const std::string& dir, std::int64_t k,
                          const std::function<void(std::size_t, std::size_t)>& progress) {
  ojson m = read_manifest(dir);
  GenConfig gen = GenConfig::from_json(m["config"]["gen"]);
  if (gen.timer != "real") gen.timer = "real";  // a re-measurement is always real
  std::vector<ojson> archive = read_jsonl((fs::path(dir) / "archive/all.jsonl").string());
  // Measured records, and the same grouped by before program (task_id), in archive order.
  std::vector<std::size_t> idx;
  std::map<std::string, std::vector<std::size_t>> family;
  for (std::size_t i = 0; i < archive.size(); ++i)
    if (archive[i].contains("measurement") && archive[i]["measurement"].is_object()) {
      idx.push_back(i);
      family[archive[i].value("task_id", "")].push_back(i);
    }
  RemeasureReport rep;
  rep.measured_records = std::int64_t(idx.size());
  Rng rng(derive(gen.master_seed, "remeasure", {}));
  rng.shuffle(idx);
  if (k >= 0 && std::size_t(k) < idx.size()) idx.resize(std::size_t(k));
  Timer timer(gen, nullptr);  // no cache: every pair is timed again
  const std::string flags = pipeline_compiler_flags();
  // Re-time in the context the records were timed in: every measured record of the same before program (one unit's
  // candidates) in one interleaved batch, as `generate` does (Timer::measure_batch).
  const std::set<std::size_t> sampled(idx.begin(), idx.end());
  std::map<std::size_t, RemeasureRow> rows;
  std::size_t done = 0;
  for (const std::size_t i : idx) {
    if (rows.count(i)) continue;
    const std::vector<std::size_t>& group = family[archive[i].value("task_id", "")];
    std::vector<ir::Task> afters;
    std::vector<TimedProgram> progs;
    ir::Task before;
    std::string error;
    try {
      before = record_task(archive[i], false);
      for (std::size_t j : group) afters.push_back(record_task(archive[j], true));
    } catch (const std::exception& e) {
      error = std::string(e.what()).substr(0, 200);
    }
    std::vector<Timer::Outcome> out;
    if (error.empty()) {
      for (std::size_t k = 0; k < afters.size(); ++k) progs.push_back({&afters[k], prog_key(afters[k], flags)});
      out = timer.measure_batch({&before, prog_key(before, flags)}, progs, nullptr);
    }
    for (std::size_t k = 0; k < group.size(); ++k) {
      const std::size_t j = group[k];
      if (!sampled.count(j)) continue;  // timed for context only
      const ojson& r = archive[j];
      RemeasureRow row;
      row.record_id = r.value("record_id", "");
      row.strategy = r["strategy"].value("name", "");
      row.recorded = r["measurement"].value("speedup", 0.0);
      row.recorded_noisy = r["measurement"].value("noisy", false);
      if (!error.empty()) row.error = error;
      else if (!out[k].error.empty()) row.error = out[k].error.substr(0, 200);
      else {
        row.remeasured = out[k].measurement["speedup"];
        row.remeasured_noisy = out[k].measurement["noisy"];
      }
      rows[j] = std::move(row);
      if (progress) progress(++done, idx.size());
    }
  }
  for (std::size_t i : idx) {
    RemeasureRow& row = rows[i];
    if (!row.error.empty()) ++rep.failed;
    if (row.kept()) ++rep.kept;
    if (row.error.empty()) rep.counts[speedup_verdict(row.recorded)][speedup_verdict(row.remeasured)]++;
    rep.rows.push_back(std::move(row));
  }
  return rep;
}

}  // namespace steptp::dataset
