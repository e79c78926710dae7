#include "dataset/audit.hpp"

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "core/canon.hpp"
#include "dataset/chat_schema.hpp"
#include "dataset/checker.hpp"
#include "dataset/config.hpp"
#include "dataset/dataset_dir.hpp"
#include "dataset/equiv.hpp"
#include "dataset/export.hpp"
#include "core/hash.hpp"
#include "dataset/record.hpp"
#include "core/rng.hpp"
#include "ir/validate.hpp"

namespace fs = std::filesystem;

namespace steptp::dataset {

AuditReport run_audit(const AuditOptions& opt) {
  AuditReport rep;
  std::mutex mu;
  auto problem = [&](const std::string& where, const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    ++rep.failures;
    if (rep.problems.size() < 50) rep.problems.push_back(where + ": " + what);
  };
  // A path that is not a dataset is bad input, not a failed audit.
  ojson m = read_manifest(opt.dir);
  for (const auto& e : verify_manifest(opt.dir)) problem("manifest", e);
  GenConfig gen = GenConfig::from_json(m["config"]["gen"]);
  EquivConfig ec;
  ec.master_seed = gen.master_seed;
  ec.draws = gen.equiv_draws;
  ec.interp_max_ops = gen.interp_max_ops;
  std::vector<ojson> archive;
  try {
    archive = read_jsonl((fs::path(opt.dir) / "archive/all.jsonl").string());
  } catch (const std::exception& e) {
    problem("archive/all.jsonl", e.what());
    return rep;
  }
  rep.records = std::int64_t(archive.size());
  std::set<std::size_t> equiv_set;
  if (opt.sample > 0 && opt.sample < rep.records) {
    Rng rng(derive(gen.master_seed, "audit", {}));
    std::vector<std::size_t> idx(archive.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    rng.shuffle(idx);
    equiv_set.insert(idx.begin(), idx.begin() + opt.sample);
  } else {
    for (std::size_t i = 0; i < archive.size(); ++i) equiv_set.insert(i);
  }
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < archive.size(); ++i)
    if (archive[i].contains("record_id") && archive[i]["record_id"].is_string()) by_id[archive[i]["record_id"]] = i;
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> eq_checked{0};
  auto worker = [&]() {
    for (std::size_t i; (i = next++) < archive.size();) {
      const ojson& r = archive[i];
      std::string where = "archive/all.jsonl:" + std::to_string(i + 1);
      auto errs = record_schema_errors(r);
      if (!errs.empty()) {
        problem(where, "schema: " + errs[0]);
        continue;
      }
      try {
        ir::Task before = record_task(r, false), after = record_task(r, true);
        ir::Task b2 = before, a2 = after;
        ir::validate_or_throw(b2);
        ir::validate_or_throw(a2);
        std::string tk = task_key(before);
        if (tk.substr(0, 32) != r["task_id"]) problem(where, "task_id does not match the before task");
        std::string ck = H({"steptp.cand/1", tk, r["strategy"]["name"].get<std::string>(), canonical_json(r["params"]),
                            std::to_string(r["versions"]["generator"].get<int>())});
        if (ck.substr(0, 32) != r["record_id"]) problem(where, "record_id does not match the candidate");
        CheckVerdict v = check_record(r);
        if (!v.ok) problem(where, "reasoning_unverified (" + v.clause + "): " + v.detail);
        if (equiv_set.count(i)) {
          Reference ref = make_reference(before, tk, ec);
          EquivOutcome eo = check_against(after, ref, r["strategy"]["class"].get<std::string>()[0], ec);
          ++eq_checked;
          if (!eo.ok) problem(where, "equivalence: " + eo.reason + " " + eo.detail);
        }
      } catch (const std::exception& e) {
        problem(where, std::string("cannot re-check: ") + std::string(e.what()).substr(0, 200));
      }
    }
  };
  std::vector<std::thread> ts;
  for (int j = 1; j < std::max(1, opt.jobs); ++j) ts.emplace_back(worker);
  worker();
  for (auto& t : ts) t.join();
  rep.equivalence_checked = eq_checked;
  // chat files and ids
  for (const char* sp : {"train", "val", "test"}) {
    std::string base = (fs::path(opt.dir) / "chat" / sp).string();
    std::vector<ojson> lines;
    std::vector<std::string> ids;
    try {
      lines = read_jsonl(base + ".jsonl");
      std::string t = ir::read_file(base + ".ids");
      for (std::size_t a = 0, b; a < t.size(); a = b + 1) {
        b = t.find('\n', a);
        if (b == std::string::npos) b = t.size();
        ids.push_back(t.substr(a, b - a));
      }
    } catch (const std::exception& e) {
      problem(std::string("chat/") + sp, e.what());
      continue;
    }
    if (ids.size() != lines.size()) problem(std::string("chat/") + sp + ".ids", "line count differs from the chat file");
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string where = std::string("chat/") + sp + ".jsonl:" + std::to_string(i + 1);
      ++rep.chat_lines;
      int n = 1;
      auto errs = chat_line_errors(lines[i], &n);
      if (!errs.empty()) {
        problem(where, errs[0]);
        continue;
      }
      if (i >= ids.size()) continue;
      std::vector<std::string> rids;
      for (std::size_t a = 0, b; a <= ids[i].size(); a = b + 1) {
        b = ids[i].find(',', a);
        if (b == std::string::npos) b = ids[i].size();
        rids.push_back(ids[i].substr(a, b - a));
      }
      auto pa = parse_answer(lines[i]["messages"][2]["content"], n);
      if (pa.programs.size() != rids.size()) {
        problem(where, "answer count differs from the ids line");
        continue;
      }
      for (std::size_t k = 0; k < rids.size(); ++k) {
        auto it = by_id.find(rids[k]);
        if (it == by_id.end()) {
          problem(where, "unknown record id " + rids[k]);
          continue;
        }
        const ojson& r = archive[it->second];
        if (pa.programs[k].strategy != r["strategy"]["name"] || pa.programs[k].leir != r["after"]["leir"])
          problem(where, "answer differs from record " + rids[k]);
        if (rids.size() == 1) {
          CheckVerdict v = check_answer(r, lines[i]["messages"][2]["content"]);
          if (!v.ok) problem(where, "reasoning (" + v.clause + "): " + v.detail);
        }
      }
    }
  }
  for (const char* sp : {"val", "test"}) {
    try {
      for (const auto& p : read_jsonl((fs::path(opt.dir) / "eval" / (std::string(sp) + ".prompts.jsonl")).string()))
        if (!p.contains("id") || !p.contains("task_id") || !p.contains("workload") || !p.contains("n") ||
            !p.contains("messages") || p["messages"].size() != 2)
          problem(std::string("eval/") + sp, "prompt line does not follow the schema");
    } catch (const std::exception& e) {
      problem(std::string("eval/") + sp, e.what());
    }
  }
  return rep;
}

}  // namespace steptp::dataset
