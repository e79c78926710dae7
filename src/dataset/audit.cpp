#include "dataset/audit.hpp"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "ir/canon.hpp"
#include "base/hash.hpp"
#include "base/rng.hpp"
#include "step/chat_schema.hpp"
#include "step/checker.hpp"
#include "step/config.hpp"
#include "step/dataset_dir.hpp"
#include "step/equiv.hpp"
#include "dataset/export.hpp"
#include "step/record.hpp"
#include "dataset/stats.hpp"
#include "ir/validate.hpp"

namespace fs = std::filesystem;

namespace steptp::dataset {
namespace {

/// Records one failure: `where` (a file, file:line or section) and what is wrong; `code` "" for the uncoded checks.
using Problem = std::function<void(const std::string& code, const std::string& where, const std::string& what)>;

/// Schema, ids, re-validation, reasoning and (for the records in `equiv_set`) numeric equivalence of every archive
/// record, on `jobs` threads. Returns the number of equivalence re-checks.
std::int64_t check_records(const std::vector<ojson>& archive, const std::set<std::size_t>& equiv_set,
                           const EquivConfig& ec, int jobs, const Problem& problem) {
  std::atomic<std::size_t> next{0};
  std::atomic<std::int64_t> eq_checked{0};
  auto worker = [&]() {
    for (std::size_t i; (i = next++) < archive.size();) {
      const ojson& r = archive[i];
      std::string where = "archive/all.jsonl:" + std::to_string(i + 1);
      auto errs = record_schema_errors(r);
      if (!errs.empty()) {
        problem("", where, "schema: " + errs[0]);
        continue;
      }
      try {
        ir::Task before = record_task(r, false), after = record_task(r, true);
        ir::Task b2 = before, a2 = after;
        ir::validate_or_throw(b2);
        ir::validate_or_throw(a2);
        std::string tk = task_key(before);
        if (tk.substr(0, 32) != r["task_id"]) problem("", where, "task_id does not match the before task");
        std::string ck = H({"steptp.cand/1", tk, r["strategy"]["name"].get<std::string>(), canonical_json(r["params"]),
                            std::to_string(r["versions"]["generator"].get<int>())});
        if (ck.substr(0, 32) != r["record_id"]) problem("", where, "record_id does not match the candidate");
        CheckVerdict v = check_record(r);
        if (!v.ok) problem("", where, "reasoning_unverified (" + v.clause + "): " + v.detail);
        if (equiv_set.count(i)) {
          Reference ref = make_reference(before, tk, ec);
          EquivOutcome eo = check_against(after, ref, r["strategy"]["class"].get<std::string>()[0], ec);
          ++eq_checked;
          if (!eo.ok) problem("", where, "equivalence: " + eo.reason + " " + eo.detail);
          else if (EquivOutcome ec = check_as_cli(before, after); !ec.ok)  // the verdict of `steptp equiv`
            problem("", where, "equivalence: " + ec.reason + " " + ec.detail);
        }
      } catch (const std::exception& e) {
        problem("", where, std::string("cannot re-check: ") + std::string(e.what()).substr(0, 200));
      }
    }
  };
  std::vector<std::thread> ts;
  for (int j = 1; j < std::max(1, jobs); ++j) ts.emplace_back(worker);
  worker();
  for (auto& t : ts) t.join();
  return eq_checked;
}

/// Record id -> index of its first line; a later line with the same id is D006 naming both lines.
std::map<std::string, std::size_t> index_record_ids(const std::vector<ojson>& archive, const Problem& problem) {
  std::map<std::string, std::size_t> by_id;
  for (std::size_t i = 0; i < archive.size(); ++i) {
    if (!archive[i].contains("record_id") || !archive[i]["record_id"].is_string()) continue;
    const std::string id = archive[i]["record_id"];
    auto [it, fresh] = by_id.emplace(id, i);
    if (!fresh)
      problem(code_str(Code::D006), "archive/all.jsonl:" + std::to_string(i + 1),
              "duplicate record_id " + id + " (lines " + std::to_string(it->second + 1) + " and " +
                  std::to_string(i + 1) + ")");
  }
  return by_id;
}

/// Every chat line of every split against its schema, its ids line and the records it names; returns the lines.
std::int64_t check_chat(const std::string& dir, const std::vector<ojson>& archive,
                        const std::map<std::string, std::size_t>& by_id, const Problem& problem) {
  std::int64_t chat_lines = 0;
  for (const char* sp : {"train", "val", "test"}) {
    std::string base = (fs::path(dir) / "chat" / sp).string();
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
      problem("", std::string("chat/") + sp, e.what());
      continue;
    }
    if (ids.size() != lines.size())
      problem("", std::string("chat/") + sp + ".ids", "line count differs from the chat file");
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::string where = std::string("chat/") + sp + ".jsonl:" + std::to_string(i + 1);
      ++chat_lines;
      int n = 1;
      auto errs = chat_line_errors(lines[i], &n);
      if (!errs.empty()) {
        problem("", where, errs[0]);
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
        problem("", where, "answer count differs from the ids line");
        continue;
      }
      for (std::size_t k = 0; k < rids.size(); ++k) {
        auto it = by_id.find(rids[k]);
        if (it == by_id.end()) {
          problem("", where, "unknown record id " + rids[k]);
          continue;
        }
        const ojson& r = archive[it->second];
        if (pa.programs[k].strategy != r["strategy"]["name"] || pa.programs[k].leir != r["after"]["leir"])
          problem("", where, "answer differs from record " + rids[k]);
        if (rids.size() == 1) {
          CheckVerdict v = check_answer(r, lines[i]["messages"][2]["content"]);
          if (!v.ok) problem("", where, "reasoning (" + v.clause + "): " + v.detail);
        }
      }
    }
  }
  return chat_lines;
}

void check_eval_prompts(const std::string& dir, const Problem& problem) {
  for (const char* sp : {"val", "test"}) {
    try {
      for (const auto& p : read_jsonl((fs::path(dir) / "eval" / (std::string(sp) + ".prompts.jsonl")).string()))
        if (!p.contains("id") || !p.contains("task_id") || !p.contains("workload") || !p.contains("n") ||
            !p.contains("messages") || p["messages"].size() != 2)
          problem("", std::string("eval/") + sp, "prompt line does not follow the schema");
    } catch (const std::exception& e) {
      problem("", std::string("eval/") + sp, e.what());
    }
  }
}

std::string clip(const std::string& s) { return s.size() <= 60 ? s : s.substr(0, 57) + "..."; }

/// The first place where `have` differs from `want` ("counts.splits.test.records: 9 here, 8 from the records"), or
/// "" when they hold the same values (key order aside).
std::string first_difference(const ojson& have, const ojson& want, const std::string& path) {
  if (have.is_object() && want.is_object()) {
    for (auto it = want.begin(); it != want.end(); ++it) {
      const std::string at = path.empty() ? it.key() : path + "." + it.key();
      if (!have.contains(it.key())) return at + ": missing";
      std::string d = first_difference(have.at(it.key()), it.value(), at);
      if (!d.empty()) return d;
    }
    for (auto it = have.begin(); it != have.end(); ++it)
      if (!want.contains(it.key())) return (path.empty() ? it.key() : path + "." + it.key()) + ": not a statistic";
    return "";
  }
  if (have.is_array() && want.is_array() && have.size() == want.size()) {
    for (std::size_t i = 0; i < have.size(); ++i) {
      std::string d = first_difference(have[i], want[i], path + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  if (have.dump() == want.dump()) return "";
  return (path.empty() ? std::string("the file") : path) + ": " + clip(have.dump()) + " here, " + clip(want.dump()) +
         " from the records";
}

/// D007: stats.json must be valid JSON holding what the archive, the S1-S9 rejects and its own pipeline counters
/// give (export_dataset's statistics), and stats.md its rendering.
void check_stats(const std::string& dir, const ojson& manifest, const std::vector<ojson>& archive,
                 const Problem& problem) {
  const std::string sp = (fs::path(dir) / "stats.json").string();
  ojson have;
  try {
    have = ojson::parse(ir::read_file(sp));
  } catch (const std::exception&) {
    std::error_code ec;
    problem(code_str(Code::D007), "stats.json", fs::is_regular_file(sp, ec) ? "not valid JSON" : "missing");
    return;
  }
  std::map<std::string, std::int64_t> counters;
  std::vector<Reject> rejects;
  ojson want;
  try {
    if (!have.is_object() || !have.contains("pipeline_counters") || !have["pipeline_counters"].is_object())
      throw std::invalid_argument("no pipeline_counters object");
    for (auto it = have["pipeline_counters"].begin(); it != have["pipeline_counters"].end(); ++it)
      counters[it.key()] = it.value().get<std::int64_t>();
    for (const auto& r : read_jsonl((fs::path(dir) / "rejects.jsonl").string()))
      if (Reject x = Reject::from_json(r); x.before_filter()) rejects.push_back(std::move(x));
    want = expected_stats(archive, std::move(rejects), counters, GenConfig::from_json(manifest.at("config").at("gen")),
                          FilterConfig::from_json(manifest.at("config").at("filter")));
  } catch (const std::exception& e) {
    problem(code_str(Code::D007), "stats.json",
            std::string("cannot be recomputed from the records: ") + clip(e.what()));
    return;
  }
  std::string d = first_difference(have, want, "");
  if (!d.empty()) {
    problem(code_str(Code::D007), "stats.json", "differs from the statistics of the records at " + d);
    return;
  }
  std::string md;
  try {
    md = ir::read_file((fs::path(dir) / "stats.md").string());
  } catch (const std::exception&) {
  }
  if (md != render_stats_md(want))
    problem(code_str(Code::D007), "stats.md", "differs from the statistics of the records");
}

/// D008: files named like write_file_atomic's temporary files (`NAME.tmp.PID`), anywhere under `dir`.
void check_stray_temp_files(const std::string& dir, const Problem& problem) {
  std::vector<std::string> stray;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (is_atomic_temp_name(it->path().filename().string()))
      stray.push_back(it->path().lexically_relative(dir).string());
  }
  std::sort(stray.begin(), stray.end());
  for (const auto& s : stray)
    problem(code_str(Code::D008), s,
            "stray temporary file (a writer was killed before renaming it, or is still writing; "
            "`steptp generate` or `steptp export` removes it once that process has exited)");
}

}  // namespace

AuditReport run_audit(const AuditOptions& opt) {
  AuditReport rep;
  std::mutex mu;
  Problem problem = [&](const std::string& code, const std::string& where, const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    ++rep.failures;
    if (rep.problems.size() < 50)
      rep.problems.push_back(code.empty() ? where + ": " + what : code + " at " + where + ": " + what);
  };
  // A path that is not a dataset is bad input, not a failed audit.
  ojson m = read_manifest(opt.dir);
  for (const auto& e : verify_manifest(opt.dir)) problem("", "manifest", e);
  check_stray_temp_files(opt.dir, problem);
  GenConfig gen = GenConfig::from_json(m["config"]["gen"]);
  EquivConfig ec;
  ec.master_seed = gen.master_seed;
  ec.draws = gen.equiv_draws;
  ec.interp_max_ops = gen.interp_max_ops;
  std::vector<ojson> archive;
  try {
    archive = read_jsonl((fs::path(opt.dir) / "archive/all.jsonl").string());
  } catch (const std::exception& e) {
    problem("", "archive/all.jsonl", e.what());
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
  const auto by_id = index_record_ids(archive, problem);
  rep.equivalence_checked = check_records(archive, equiv_set, ec, opt.jobs, problem);
  check_stats(opt.dir, m, archive, problem);
  rep.chat_lines = check_chat(opt.dir, archive, by_id, problem);
  check_eval_prompts(opt.dir, problem);
  return rep;
}

}  // namespace steptp::dataset
