// In-process tests of the unit pipeline, the reasoning checker and filtering on the tiny task set. They work with
// whatever strategies are registered: each test uses the records the registry produces. Each test process builds the
// tiny set again (about a minute under ASan): two suites run in the sanitizer build, the *Slow ones in the optimised
// build only.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "step/checker.hpp"
#include "dataset/filter.hpp"
#include "step/record.hpp"
#include "dataset/unit_pipeline.hpp"
#include "dataset_test_util.hpp"

using namespace steptp::dataset;

namespace {

struct Tiny {
  std::string dir, tasks;
  GenConfig gen;
  std::vector<ojson> records;
  std::vector<Reject> rejects;
};

const Tiny& tiny() {
  static Tiny t = [] {
    Tiny t;
    t.dir = dstest::temp_dir("pipe");
    t.tasks = dstest::write_tiny_tasks(t.dir);
    t.gen.builtin = false;
    t.gen.task_files = {t.tasks};
    t.gen.measure = false;
    t.gen.max_depth = 1;
    auto units = plan_units(t.gen, t.rejects);
    PipelineEnv env{&t.gen, nullptr, nullptr, nullptr, 0, nullptr, false, {}};
    for (const auto& u : units) {
      auto r = process_unit(u, env);
      for (auto& rec : r.records) t.records.push_back(rec);
      t.rejects.insert(t.rejects.end(), r.rejects.begin(), r.rejects.end());
    }
    return t;
  }();
  return t;
}

}  // namespace

TEST(DatasetPipeline, RecordsConformAndVerify) {
  const auto& t = tiny();
  ASSERT_FALSE(t.records.empty()) << "no strategy produced a record on the tiny set";
  std::set<std::string> ids;
  for (const auto& r : t.records) {
    EXPECT_TRUE(record_schema_errors(r).empty()) << record_schema_errors(r)[0];
    EXPECT_TRUE(ids.insert(r["record_id"]).second) << "duplicate record id";
    auto v = check_record(r);
    EXPECT_TRUE(v.ok) << v.clause << ": " << v.detail;
    EXPECT_TRUE(r["measurement"].is_null());
    EXPECT_EQ(r["step"]["index"], 1);
    EXPECT_NE(r["before"]["leir"], r["after"]["leir"]);
  }
  for (const auto& rj : t.rejects) EXPECT_NE(rj.reason, "reasoning_unverified") << rj.detail;
}

TEST(DatasetPipeline, CheckerRejectsTamperedText) {
  const auto& t = tiny();
  ASSERT_FALSE(t.records.empty());
  ojson r = t.records[0];
  std::string text = r["reasoning"];
  // 1. change one number of the Observation section
  auto pos = text.find("iterations ");
  ASSERT_NE(pos, std::string::npos);
  std::string bad = text;
  bad.insert(pos + 11, "1");
  r["reasoning"] = bad;
  auto v = check_record(r);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.clause.find("Observation"), std::string::npos) << v.clause;
  // 2. free text added
  r["reasoning"] = text + "\n- this is certainly faster";
  v = check_record(r);
  EXPECT_FALSE(v.ok);
  // 3. a section dropped
  auto leg = text.find("Legality:\n");
  auto eff = text.find("Expected effect:\n");
  r["reasoning"] = text.substr(0, leg) + text.substr(eff);
  v = check_record(r);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.clause.find("section"), std::string::npos) << v.clause;
  // 4. the after program changed: re-applying no longer reproduces it
  r = t.records[0];
  r["after"]["leir"] = r["before"]["leir"];
  v = check_record(r);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.clause, "apply");
  // 5. a stored fact changed
  r = t.records[0];
  r["facts"][0]["text"] = "X[0] = 0";
  v = check_record(r);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.clause, "facts");
}

TEST(DatasetPipelineSlow, FilterSplitsByWorkloadAndIsDeterministic) {
  const auto& t = tiny();
  std::vector<ojson> archive = t.records;
  std::sort(archive.begin(), archive.end(), record_less);
  FilterConfig fc;
  fc.min_per_strategy = 2;
  auto a = filter_records(archive, {}, fc, 1), b = filter_records(archive, {}, fc, 1);
  std::map<std::string, std::string> split_of;
  for (const char* sp : kSplits) {
    ASSERT_EQ(a.samples[sp].size(), b.samples[sp].size());
    for (std::size_t i = 0; i < a.samples[sp].size(); ++i) {
      EXPECT_EQ(a.samples[sp][i].assistant, b.samples[sp][i].assistant);
      for (auto k : a.samples[sp][i].recs) {
        std::string w = archive[k]["workload"];
        auto [it, fresh] = split_of.emplace(w, sp);
        EXPECT_EQ(it->second, sp) << "workload " << w << " spans two splits";
      }
    }
  }
  // every family has fewer than 10 groups, so the 6 workloads are pooled and dealt 0.8/0.1/0.1 with at least one
  // each: 4 train, 1 validation, 1 test
  EXPECT_EQ(a.split_of.size(), 6u);
  std::map<std::string, int> per_split;
  for (const auto& [w, sp] : a.split_of) per_split[sp]++;
  EXPECT_EQ(per_split["train"], 4);
  EXPECT_EQ(per_split["val"], 1);
  EXPECT_EQ(per_split["test"], 1);
  EXPECT_EQ(a.audit["split_leak"]["val"], 0);
  // a family of 10 workloads keeps its own place in every split (8 / 1 / 1); the 5 others form the pool
  std::vector<ojson> big;
  for (const auto& r : archive) {
    if (r["family"] != "elementwise") {
      big.push_back(r);
      continue;
    }
    for (int i = 0; i < 10; ++i) {
      ojson c = r;
      c["workload"] = "Elementwise_" + std::to_string(i);
      big.push_back(c);
    }
  }
  std::sort(big.begin(), big.end(), record_less);
  auto f = filter_records(big, {}, fc, 1);
  std::map<std::string, int> fam_split, pool_split;
  for (const auto& [w, sp] : f.split_of) (w.rfind("Elementwise_", 0) == 0 ? fam_split : pool_split)[sp]++;
  EXPECT_EQ(fam_split["train"], 8);
  EXPECT_EQ(fam_split["val"], 1);
  EXPECT_EQ(fam_split["test"], 1);
  EXPECT_EQ(pool_split["train"] + pool_split["val"] + pool_split["test"], 3);
}

TEST(DatasetPipelineSlow, RootCandidatesAreSampledAcrossStrategies) {
  // GenConfig::root_candidates = 2: each root verifies at most two candidates, drawn from the same per-strategy
  // samples as the §2.4 default (so each is one of the default run's records, same id), and the draw is
  // deterministic.
  const auto& t = tiny();
  std::set<std::string> all_ids;
  for (const auto& r : t.records) all_ids.insert(r["record_id"].get<std::string>());
  auto run = [&] {
    GenConfig g = t.gen;
    g.root_candidates = 2;
    std::vector<Reject> rj;
    auto units = plan_units(g, rj);
    PipelineEnv env{&g, nullptr, nullptr, nullptr, 0, nullptr, false, {}};
    std::map<std::string, std::vector<std::string>> per_unit;
    for (const auto& u : units)
      for (const auto& rec : process_unit(u, env).records) per_unit[u.name()].push_back(rec["record_id"]);
    return per_unit;
  };
  const auto a = run();
  ASSERT_FALSE(a.empty());
  std::size_t n = 0;
  for (const auto& [unit, ids] : a) {
    EXPECT_LE(ids.size(), 2u) << unit;
    for (const auto& id : ids) EXPECT_TRUE(all_ids.count(id)) << unit << ": " << id << " is not a default record";
    n += ids.size();
  }
  EXPECT_LT(n, t.records.size());
  EXPECT_EQ(run(), a);
  // Absent from the configuration JSON (and its hash) while 0; read back when set.
  GenConfig g;
  EXPECT_FALSE(g.to_json().contains("root_candidates"));
  g.root_candidates = 4;
  EXPECT_EQ(GenConfig::from_json(g.to_json()).root_candidates, 4);
}
