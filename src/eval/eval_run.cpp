#include "eval/eval_run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>

#include "step/cache.hpp"
#include "ir/canon.hpp"
#include "base/hash.hpp"
#include "step/prompt.hpp"
#include "step/config.hpp"
#include "step/dataset_dir.hpp"
#include "step/progress.hpp"
#include "policy/factory.hpp"
#include "step/reasoning.hpp"
#include "step/record.hpp"
#include "step/distribution.hpp"
#include "eval/summary.hpp"
#include "policy/random_policy.hpp"
#include "policy/replay.hpp"

namespace steptp::eval {
namespace fs = std::filesystem;

namespace {

/// One evaluation prompt of the split, with the program it asks to transform.
struct EvalPrompt {
  policy::Prompt prompt;
  std::string task_id, workload;
  std::shared_ptr<TaskContext> ctx;
};

/// The dataset side of an eval: manifest, prompts of the split and their tasks.
struct Dataset {
  ojson manifest;
  std::vector<EvalPrompt> prompts;
};

Dataset load_dataset(const std::string& dir, const std::string& split, int only_n = 0) {
  if (split != "val" && split != "test") throw EvalUsageError("unknown split '" + split + "' (val or test)");
  Dataset d;
  d.manifest = dataset::read_manifest(dir);
  const std::string ppath = dataset::require_file(dir, "eval/" + split + ".prompts.jsonl",
                                                  "the " + split + " split's prompt file");
  auto lines = dataset::read_jsonl(ppath);
  if (lines.empty())
    throw dataset::DatasetDirError(Code::D002, ppath, "empty prompt file (the " + split + " split has no tasks)");
  std::map<std::string, std::shared_ptr<TaskContext>> tasks;
  for (const auto& rec : dataset::read_jsonl(dir + "/archive/" + split + ".jsonl")) {
    std::string tid = rec.value("task_id", "");
    if (tid.empty() || tasks.count(tid)) continue;
    try {
      tasks[tid] = std::make_shared<TaskContext>(dataset::record_task(rec, false));
    } catch (const std::exception& e) {
      throw EvalInputError(dir + "/archive/" + split + ".jsonl: task " + tid + ": " + e.what());
    }
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i];
    auto where = [&] { return ppath + ":" + std::to_string(i + 1) + ": "; };
    if (!l.is_object() || !l.contains("id") || !l.contains("task_id") || !l.contains("n") || !l.contains("messages") ||
        !l["messages"].is_array() || l["messages"].size() != 2 || !l["n"].is_number_integer())
      throw EvalInputError(where() + R"(expected {"id", "task_id", "workload", "n", "messages": [system, user]})");
    EvalPrompt p;
    p.prompt.id = l["id"];
    p.prompt.system = l["messages"][0].value("content", "");
    p.prompt.user = l["messages"][1].value("content", "");
    p.prompt.n = l["n"];
    p.task_id = l["task_id"];
    p.workload = l.value("workload", "");
    auto it = tasks.find(p.task_id);
    if (it == tasks.end()) throw EvalInputError(where() + "task " + p.task_id + " is not in archive/" + split + ".jsonl");
    p.ctx = it->second;
    p.prompt.task = &p.ctx->before();
    if (only_n == 0 || p.prompt.n == only_n) d.prompts.push_back(std::move(p));
  }
  if (d.prompts.empty()) throw EvalInputError(ppath + " has no prompt with n = " + std::to_string(only_n));
  return d;
}

ojson reply_json(const policy::Reply& r, const std::string& error) {
  return {{"content", r.content}, {"finish_reason", r.finish_reason}, {"truncated", r.truncated},
          {"prompt_tokens", r.prompt_tokens}, {"completion_tokens", r.completion_tokens}, {"latency_s", r.latency_s},
          {"attempts", r.attempts}, {"retried", r.retried}, {"cached", r.cached}, {"none", r.none},
          {"error", error.empty() ? ojson(nullptr) : ojson(error)}};
}

/// Everything that makes a run's outputs, shared by the workers.
class Runner {
 public:
  Runner(const EvalOptions& opt, Dataset& ds) : opt_(opt), ds_(ds) {
    std::error_code ec;
    fs::create_directories(opt_.out_dir, ec);
    if (ec || !fs::is_directory(opt_.out_dir))
      throw EvalInputError("--out " + opt_.out_dir + ": cannot create the directory (" + ec.message() + ")");
    cache_ = std::make_unique<core::Cache>(opt_.cache_path.empty() ? opt_.out_dir + "/cache.sqlite" : opt_.cache_path);
    gen_ = dataset::GenConfig::from_json(ds_.manifest.at("config").at("gen"));
    gen_.timer = opt_.timer;
    gen_.measure = opt_.measure;
    if (opt_.repeats > 0) gen_.repeats = opt_.repeats;
    gcfg_ = opt_.grade;
    gcfg_.master_seed = gen_.master_seed;
    gcfg_.equiv_draws = gen_.equiv_draws;
    gcfg_.interp_max_ops = gen_.interp_max_ops;
    gcfg_.measure = opt_.measure;
    if (opt_.measure) {
      timer_ = std::make_unique<dataset::Timer>(gen_, cache_.get());
      cold_ = gen_;
      cold_.cold_cache = true;
      cold_timer_ = std::make_unique<dataset::Timer>(cold_, cache_.get(), timer_->gate());
    }
    grader_ = std::make_unique<Grader>(gcfg_, timer_.get(), cold_timer_.get());
    policy::PolicySpec spec;
    spec.name = opt_.policy;
    spec.llm = opt_.llm;
    spec.replay_file = opt_.replay_file;
    spec.seed = opt_.policy_seed ? opt_.policy_seed : gen_.master_seed;
    try {
      policy_ = policy::make_policy(spec, cache_.get(), "llm, replay, random", &llm_);
    } catch (const policy::PolicySpecError& e) {
      throw EvalInputError(e.what());
    }
    std::size_t np = ds_.prompts.size();
    if (opt_.limit > 0) np = std::min(np, std::size_t(opt_.limit));
    for (std::size_t i = 0; i < np; ++i)
      for (int s = 0; s < opt_.samples; ++s) items_.emplace_back(i, s);
    results_.resize(items_.size());
    transcripts_.resize(items_.size());
    done_.assign(items_.size(), false);
  }

  EvalResult run() {
    auto t0 = std::chrono::steady_clock::now();
    dataset::Progress progress("eval", std::int64_t(items_.size()), opt_.progress);
    std::vector<std::thread> workers;
    int nw = std::max(1, std::min<int>(opt_.concurrency, int(items_.size())));
    for (int w = 0; w < nw; ++w)
      workers.emplace_back([&] {
        for (;;) {
          std::size_t i = next_.fetch_add(1);
          if (i >= items_.size() || fatal_.load()) return;
          try {
            work(i);
            progress.tick();
          } catch (const policy::PolicyError& e) {
            std::lock_guard<std::mutex> lock(mu_);
            if (!fatal_.exchange(true)) fatal_msg_ = e.what(), fatal_code_ = e.code();
          } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(mu_);
            if (!fatal_.exchange(true)) fatal_msg_ = e.what(), fatal_code_ = "internal";
          }
          cv_.notify_all();
        }
      });
    // Checkpoints: the finished answers are on disk at most ~3 s after they finish (not after every answer: each
    // checkpoint rewrites and fsyncs both files).
    auto last = std::chrono::steady_clock::now();
    for (;;) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_until(lock, last + std::chrono::seconds(3), [&] { return finished_ == items_.size() || fatal_.load(); });
      bool all = finished_ == items_.size();
      bool stop = fatal_.load();
      lock.unlock();
      if (all || stop) break;
      write_partial();
      last = std::chrono::steady_clock::now();
    }
    for (auto& t : workers) t.join();
    progress.finish();
    write_partial();
    EvalResult res;
    res.run = run_info(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    ir::write_file_atomic(opt_.out_dir + "/run.json", core::dump_pretty(res.run) + "\n");
    if (fatal_.load()) {
      if (fatal_code_ == "internal") throw std::runtime_error(fatal_msg_);
      throw policy::PolicyError(fatal_code_, fatal_msg_.substr(fatal_code_.size() + 2) +
                                    " — stopped; the answers graded so far are in " + opt_.out_dir +
                                    "/results.jsonl and a rerun resumes from the cache", true);
    }
    std::vector<ojson> lines;
    for (auto& r : results_) lines.push_back(r);
    res.summary = compute_summary(lines, meta());
    ir::write_file_atomic(opt_.out_dir + "/summary.json", core::dump_pretty(res.summary) + "\n");
    ir::write_file_atomic(opt_.out_dir + "/summary.md", render_summary_md(res.summary));
    return res;
  }

 private:
  /// Replies for item i: one reply (multi mode, or an n = 1 prompt), or n replies to the n = 1 rendering of an
  /// n >= 2 prompt (samples mode).
  void work(std::size_t i) {
    const auto [pi, sample] = items_[i];
    const EvalPrompt& ep = ds_.prompts[pi];
    std::vector<policy::Prompt> asks;
    std::vector<int> sample_ids;
    if (ep.prompt.n > 1 && opt_.llm_mode == "samples") {
      policy::Prompt one = ep.prompt;
      one.n = 1;
      one.user = core::render_user(ep.workload, ep.ctx->printed(), ep.ctx->before().known, 1);
      // Sample indices of their own (1000000·n + ...): the n = 1 prompt of the same task sends the same messages,
      // and sharing its indices would share (and race for) its llm_calls rows.
      for (int j = 0; j < ep.prompt.n; ++j)
        asks.push_back(one), sample_ids.push_back(1000000 * ep.prompt.n + sample * ep.prompt.n + j);
    } else {
      asks.push_back(ep.prompt);
      sample_ids.push_back(sample);
    }
    ojson replies = ojson::array(), trans = ojson::array();
    for (std::size_t a = 0; a < asks.size(); ++a) {
      policy::Reply r;
      std::string error;
      try {
        r = policy_->reply(asks[a], sample_ids[a]);
      } catch (const policy::PolicyError& e) {
        if (e.fatal()) throw;
        error = e.what();
      }
      replies.push_back(reply_json(r, error));
      ojson t{{"id", ep.prompt.id}, {"sample", sample_ids[a]}, {"prompt_sha256", asks[a].sha256()},
              {"policy", policy_->name()}};
      if (llm_) t["endpoint"] = llm_->endpoint(), t["model"] = opt_.llm.model, t["temperature"] = opt_.llm.temperature,
                t["max_tokens"] = opt_.llm.max_tokens;
      t["messages"] = ojson::array({{{"role", "system"}, {"content", asks[a].system}}, {{"role", "user"}, {"content", asks[a].user}}});
      t["reply"] = replies.back();
      t["raw_response"] = r.raw;
      trans.push_back(std::move(t));
    }
    // grade (cached by the replies and the grading configuration)
    ojson key_parts = ojson::array();
    for (const auto& r : replies) key_parts.push_back({r["content"], r["truncated"], r["none"], r["error"].is_null()});
    const std::string gkey = core::H({"steptp.eval_grade/1", ep.prompt.sha256(), std::to_string(ep.prompt.n),
                                      core::canonical_json(key_parts), grade_config_text(), timer_ ? timer_->env() : "none"});
    ojson grade;
    if (auto hit = cache_->get("eval_grades", gkey)) {
      grade = ojson::parse(*hit);
      graded_from_cache_++;
    } else {
      dataset::MeasureGate::Compute section(timer_ ? timer_->gate() : nullptr);
      grade = grade_answer(ep, replies);
      cache_->put("eval_grades", gkey, core::dump_py(grade));
    }
    ojson line;
    line["id"] = ep.prompt.id;
    line["task_id"] = ep.task_id;
    line["workload"] = ep.workload;
    line["n"] = ep.prompt.n;
    line["sample"] = sample;
    line["replies"] = replies;
    for (auto it = grade.begin(); it != grade.end(); ++it) line[it.key()] = it.value();
    std::lock_guard<std::mutex> lock(mu_);
    results_[i] = std::move(line);
    transcripts_[i] = std::move(trans);
    done_[i] = true;
    ++finished_;
  }

  /// The graded part of a result line (everything but the replies' metadata).
  ojson grade_answer(const EvalPrompt& ep, const ojson& replies) {
    const int n = ep.prompt.n;
    const bool split_samples = n > 1 && replies.size() > 1;
    ParsedAnswer pa;
    pa.ok = true;
    std::string parse_reason, parse_detail;
    for (const auto& r : replies) {
      ParsedAnswer one;
      if (!r["error"].is_null()) one.reason = "policy_error", one.detail = r["error"];
      else if (r["none"].get<bool>()) one.reason = "no_proposal", one.detail = "the policy had no reply for this prompt";
      else one = parse_answer(r["content"], split_samples ? 1 : n, r["truncated"]);
      if (!one.ok) {
        pa.ok = false;
        if (parse_reason.empty()) parse_reason = one.reason, parse_detail = one.detail;
      }
      pa.think_present = one.think_present;
      pa.think = one.think;
      for (auto& p : one.programs) pa.programs.push_back(std::move(p));
    }
    if (split_samples && !pa.programs.empty()) pa.ok = true;  // samples mode: the programs that did parse count
    std::vector<ProgramGrade> grades;
    if (pa.ok)
      for (const auto& p : pa.programs) grades.push_back(grader_->grade(*ep.ctx, p, pa.think));
    ojson g;
    g["parsed"] = pa.ok;
    g["parse_reason"] = parse_reason;
    g["parse_detail"] = parse_detail;
    g["think_present"] = pa.think_present;
    ojson programs = ojson::array();
    for (const auto& pg : grades) programs.push_back(pg.to_json());
    auto any = [&](auto pred) { return std::any_of(grades.begin(), grades.end(), pred); };
    if (n <= 1) {
      const ProgramGrade* p = grades.empty() ? nullptr : &grades[0];
      g["strategy"] = p ? ojson(p->strategy) : ojson(nullptr);
      for (const char* k : {"differs", "valid", "equivalent", "faster"}) g[k] = false;
      if (p) g["differs"] = p->differs, g["valid"] = p->valid, g["equivalent"] = p->equivalent, g["faster"] = p->faster;
      g["failed_gate"] = !pa.ok ? ojson("parsed") : p->failed_gate.empty() ? ojson(nullptr) : ojson(p->failed_gate);
      g["reason"] = !pa.ok ? parse_reason : p->reason;
      g["detail"] = !pa.ok ? parse_detail : p->detail;
      g["speedup"] = p && p->speedup ? ojson(*p->speedup) : ojson(nullptr);
      g["strategy_consistent"] = p && p->strategy_consistent;
    } else {
      g["strategy"] = nullptr;
      g["differs"] = any([](const ProgramGrade& x) { return x.differs; });
      g["valid"] = any([](const ProgramGrade& x) { return x.valid; });
      g["equivalent"] = any([](const ProgramGrade& x) { return x.equivalent; });
      g["faster"] = any([](const ProgramGrade& x) { return x.faster; });
      g["failed_gate"] = pa.ok ? ojson(nullptr) : ojson("parsed");
      g["reason"] = parse_reason;
      g["detail"] = parse_detail;
      g["speedup"] = nullptr;
      g["strategy_consistent"] = !grades.empty() && std::all_of(grades.begin(), grades.end(), [](const ProgramGrade& x) { return x.strategy_consistent; });
    }
    auto [verified, why] = split_samples ? std::pair<bool, std::string>{false, "samples mode: no single think block"}
                                         : grader_->verify_reasoning(*ep.ctx, pa, grades);
    g["reasoning_verified"] = verified;
    g["reasoning_detail"] = why;
    g["programs"] = programs;
    if (n > 1) {
      std::set<std::string> distinct, strategies;
      ojson best = nullptr;
      for (const auto& pg : grades) {
        if (pg.differs) distinct.insert(pg.canonical);
        strategies.insert(pg.strategy);
        if (pg.equivalent && pg.speedup && (best.is_null() || *pg.speedup > best.get<double>())) best = *pg.speedup;
      }
      g["multi"] = {{"distinct_differing", distinct.size()}, {"meets_n", int(distinct.size()) >= n},
                    {"all_equivalent", !grades.empty() && std::all_of(grades.begin(), grades.end(), [](const ProgramGrade& x) { return x.equivalent; })},
                    {"distinct_strategies", strategies.size()},
                    {"any_faster", any([](const ProgramGrade& x) { return x.faster; })}, {"best_speedup", best}};
    } else {
      g["multi"] = nullptr;
    }
    return g;
  }

  std::string grade_config_text() const {
    ojson j{{"seed", gcfg_.master_seed}, {"draws", gcfg_.equiv_draws}, {"interp_max_ops", gcfg_.interp_max_ops},
            {"measure", gcfg_.measure}, {"faster", gcfg_.faster_threshold}, {"suspicious", gcfg_.suspicious_speedup},
            {"intensity", gcfg_.compute_bound_intensity}, {"recheck", gcfg_.recheck_trials},
            {"enum_limit", gcfg_.consistency_enum_limit}, {"repeats", gen_.repeats},
            {"strict", gcfg_.strict.enabled ? ojson(gcfg_.strict.max_executions) : ojson(false)}};
    return core::canonical_json(j);
  }

  ojson meta() const {
    ojson m;
    m["schema"] = "steptp.eval/1";
    m["split"] = opt_.split;
    m["policy"] = opt_.policy;
    m["model"] = opt_.policy == "llm" ? ojson(opt_.llm.model) : ojson(nullptr);
    if (opt_.policy == "replay") m["replay_file"] = fs::path(opt_.replay_file).filename().string();
    m["prompts"] = items_.empty() ? 0 : items_.back().first + 1;
    m["samples"] = opt_.samples;
    m["llm_mode"] = opt_.llm_mode;
    m["measured"] = opt_.measure;
    m["timer"] = opt_.measure ? ojson(opt_.timer) : ojson(nullptr);
    m["faster_threshold"] = gcfg_.faster_threshold;
    m["dataset_gen_hash"] = ds_.manifest.value("gen_hash", "");
    m["env"] = timer_ ? ojson(timer_->env()) : ojson(nullptr);
    return m;
  }

  ojson run_info(double wall) {
    std::vector<double> lat;
    std::int64_t cached = 0, replies = 0;
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < items_.size(); ++i)
      if (done_[i])
        for (const auto& r : results_[i]["replies"]) {
          ++replies;
          if (r["cached"].get<bool>()) ++cached;
          else if (r["latency_s"].get<double>() > 0) lat.push_back(r["latency_s"].get<double>());
        }
    return {{"wall_s", wall}, {"answers_finished", finished_}, {"answers_total", items_.size()}, {"replies", replies},
            {"replies_from_cache", cached}, {"graded_from_cache", graded_from_cache_.load()},
            {"http_requests", llm_ ? llm_->requests() : 0}, {"latency_s", dataset::distribution(lat)},
            {"concurrency", opt_.concurrency}, {"policy", opt_.policy},
            {"endpoint", llm_ ? ojson(llm_->endpoint()) : ojson(nullptr)}, {"stopped", fatal_.load() ? ojson(fatal_msg_) : ojson(nullptr)}};
  }

  void write_partial() {
    std::string res, tr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (!done_[i]) continue;
        res += core::dump_py(results_[i]) + "\n";
        for (const auto& t : transcripts_[i]) tr += core::dump_py(t) + "\n";
      }
    }
    ir::write_file_atomic(opt_.out_dir + "/results.jsonl", res);
    ir::write_file_atomic(opt_.out_dir + "/transcripts.jsonl", tr);
  }

  const EvalOptions& opt_;
  Dataset& ds_;
  std::unique_ptr<core::Cache> cache_;
  dataset::GenConfig gen_, cold_;
  GradeConfig gcfg_;
  std::unique_ptr<dataset::Timer> timer_, cold_timer_;
  std::unique_ptr<Grader> grader_;
  std::unique_ptr<policy::Policy> policy_;
  policy::LlmPolicy* llm_ = nullptr;
  std::vector<std::pair<std::size_t, int>> items_;
  std::vector<ojson> results_;
  std::vector<ojson> transcripts_;
  std::vector<bool> done_;
  std::size_t finished_ = 0;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> fatal_{false};
  std::atomic<std::int64_t> graded_from_cache_{0};
  std::string fatal_msg_, fatal_code_;
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace

EvalResult run_eval(const EvalOptions& opt) {
  if (opt.out_dir.empty()) throw EvalUsageError("--out is required");
  if (opt.samples < 1) throw EvalUsageError("--samples must be at least 1");
  if (opt.limit < 0) throw EvalUsageError("--limit must be 0 (all) or positive");
  if (opt.llm_mode != "multi" && opt.llm_mode != "samples") throw EvalUsageError("--llm-mode must be multi or samples");
  if (opt.timer != "real" && opt.timer != "fixed") throw EvalUsageError("--timer must be real or fixed");
  if (opt.policy == "replay" && opt.replay_file.empty()) throw EvalUsageError("--policy replay needs --replay FILE");
  if (opt.only_n < 0) throw EvalUsageError("--n must be positive");
  Dataset ds = load_dataset(opt.data_dir, opt.split, opt.only_n);
  Runner r(opt, ds);
  return r.run();
}

std::vector<ojson> gold_replay(const std::string& data_dir, const std::string& split) {
  Dataset ds = load_dataset(data_dir, split);
  // user message -> assistant messages, in chat file order
  std::map<std::string, std::vector<std::string>> by_user;
  for (const auto& l : dataset::read_jsonl(data_dir + "/chat/" + split + ".jsonl")) {
    const auto& m = l.at("messages");
    by_user[m.at(1).at("content").get<std::string>()].push_back(m.at(2).at("content").get<std::string>());
  }
  // task id -> records (archive order)
  std::map<std::string, std::vector<ojson>> by_task;
  for (const auto& rec : dataset::read_jsonl(data_dir + "/archive/" + split + ".jsonl"))
    by_task[rec.value("task_id", "")].push_back(rec);
  std::vector<ojson> out;
  for (const auto& p : ds.prompts) {
    ojson replies = ojson::array();
    if (p.prompt.n <= 1) {
      for (const auto& a : by_user[p.prompt.user]) replies.push_back(a);
    } else {
      std::vector<std::string> reasonings;
      std::vector<std::pair<std::string, std::string>> answers;
      std::set<std::string> seen;
      for (const auto& rec : by_task[p.task_id]) {
        std::string s = rec["strategy"]["name"];
        if (!seen.insert(s).second) continue;
        reasonings.push_back(rec["reasoning"]);
        answers.emplace_back(s, rec["after"]["leir"].get<std::string>());
        if (int(answers.size()) == p.prompt.n) break;
      }
      if (int(answers.size()) == p.prompt.n)
        replies.push_back(core::render_assistant(dataset::render_multi_reasoning(reasonings), answers));
    }
    out.push_back({{"prompt_sha256", p.prompt.sha256()}, {"replies", replies}});
  }
  return out;
}

}  // namespace steptp::eval
