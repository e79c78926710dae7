#include "search/search_run.hpp"

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "step/cache.hpp"
#include "ir/canon.hpp"
#include "base/hash.hpp"
#include "step/config.hpp"
#include "step/dataset_dir.hpp"
#include "step/progress.hpp"
#include "step/record.hpp"
#include "step/timing.hpp"
#include "frontend/workloads.hpp"
#include "interp/interpreter.hpp"
#include "base/diag.hpp"
#include "ir/task.hpp"
#include "runtime/best_core.hpp"
#include "runtime/library_baseline.hpp"
#include "search/report.hpp"
#include "search/step_path.hpp"

namespace fs = std::filesystem;

namespace steptp::search {
namespace {

/// One root task, or why it cannot be searched.
struct Root {
  std::string task_id, workload;
  std::optional<ir::Task> task;
  std::string error;
};

std::string short_id(const ir::Task& t) { return core::task_key(t).substr(0, 32); }

std::vector<Root> dataset_roots(const SearchOptions& opt, ojson& manifest) {
  const std::string& dir = opt.data_dir;
  manifest = dataset::read_manifest(dir);
  const std::string apath = dataset::require_file(dir, "archive/" + opt.split + ".jsonl",
                                                  "the " + opt.split + " split's records");
  std::ifstream in(apath);
  if (!in) throw dataset::DatasetDirError(Code::D002, apath, "cannot read the " + opt.split + " split's records");
  std::set<std::string> wanted(opt.workloads.begin(), opt.workloads.end()), tasks;
  std::map<std::string, int> per_workload;
  std::vector<Root> roots;
  std::string line;
  for (int no = 1; ir::getline_bounded(in, line, apath); ++no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ojson rec;
    try {
      rec = ojson::parse(line);
    } catch (const std::exception&) {
      throw dataset::DatasetDirError(Code::D003, apath + ":" + std::to_string(no), "not a JSON line");
    }
    if (!rec.is_object() || !rec.contains("step") || rec["step"].value("index", 0) != 1) continue;
    Root r;
    r.task_id = rec.value("task_id", "");
    r.workload = rec.value("workload", "");
    if (r.task_id.empty() || tasks.count(r.task_id)) continue;
    if (!wanted.empty() && !wanted.count(r.workload)) continue;
    if (per_workload[r.workload] >= opt.tasks_per_workload) continue;
    ++per_workload[r.workload];
    tasks.insert(r.task_id);
    try {
      r.task = dataset::record_task(rec, false);
    } catch (const std::exception& e) {
      r.error = apath + ":" + std::to_string(no) + ": " + e.what();
    }
    roots.push_back(std::move(r));
  }
  if (roots.empty()) throw SearchInputError(apath + " has no root task" + (wanted.empty() ? "" : " of the given --workloads"));
  return roots;
}

std::vector<Root> file_roots(const std::string& path) {
  std::vector<ir::TaskOrError> items;
  try {
    items = ir::read_tasks_jsonl(path);
  } catch (const std::exception& e) {
    throw SearchInputError("--tasks " + path + ": " + e.what());
  }
  if (items.empty()) throw SearchInputError("--tasks " + path + ": no task in the file");
  std::vector<Root> roots;
  for (auto& it : items) {
    Root r;
    r.workload = it.task.workload;
    if (it.ok) {
      r.task_id = short_id(it.task);
      r.task = std::move(it.task);
    } else {
      r.task_id = "line-" + std::to_string(it.line);
      r.error = path + ":" + std::to_string(it.line) + ": " + it.error.headline();
    }
    roots.push_back(std::move(r));
  }
  return roots;
}

std::vector<Root> workload_roots(const SearchOptions& opt) {
  const auto parsed = ir::parse_dtype(opt.dtype);
  if (!parsed) throw SearchUsageError("--dtype " + opt.dtype + ": unknown dtype (f32, f64, f16, bf16)");
  const ir::DType dt = *parsed;
  std::vector<Root> roots;
  for (const auto& name : opt.workloads) {
    const frontend::Workload* w = nullptr;
    try {
      w = &frontend::find_workload_or_throw(name);
    } catch (const ir::LeirError& e) {  // E109
      throw SearchInputError(e.diag().headline());
    }
    Root r;
    r.workload = name;
    try {
      r.task = frontend::emit(*w, opt.small ? frontend::small_params(*w) : frontend::default_params(*w), dt);
      r.task_id = short_id(*r.task);
    } catch (const std::exception& e) {
      r.task_id = name;
      r.error = name + ": " + e.what();
    }
    roots.push_back(std::move(r));
  }
  return roots;
}

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return core::H({s});
}

/// What makes a policy's replies: part of the resume key.
std::string policy_identity(const policy::PolicySpec& p) {
  if (p.name == "llm")
    return core::H({"llm", p.llm.base_url, p.llm.model, fmt::format("{}", p.llm.temperature),
                    std::to_string(p.llm.max_tokens), p.llm.seed ? std::to_string(*p.llm.seed) : ""});
  if (p.name == "replay") return core::H({"replay", file_digest(p.replay_file)});
  if (p.name == "cost")
    return core::H({"cost", p.cost_model, p.cost_model == "analytical" ? std::to_string(p.threads) : file_digest(p.cost_model),
                    std::to_string(p.enum_limit), "lookahead=" + p.lookahead, "sketch=" + p.sketch,
                    p.measure_guided ? "measure-guided" : "model"});
  return core::H({p.name, std::to_string(p.seed)});
}

std::string lines(const std::vector<ojson>& v) {
  std::string s;
  for (const auto& j : v) s += core::dump_py(j) + "\n";
  return s;
}


/// The flag combinations run_search refuses (SearchUsageError).
void validate_options(const SearchOptions& opt) {
  const auto& names = algorithm_names();
  if (std::find(names.begin(), names.end(), opt.search.algorithm) == names.end())
    throw SearchUsageError("unknown algorithm '" + opt.search.algorithm + "' (chain, greedy, beam, dfs, bfs, mcts)");
  if (opt.search.proposals < 1) throw SearchUsageError("--proposals must be at least 1");
  if (opt.search.measurements < 1) throw SearchUsageError("--measurements must be at least 1");
  if (opt.search.llm_mode != "multi" && opt.search.llm_mode != "samples")
    throw SearchUsageError("--llm-mode " + opt.search.llm_mode + ": expected multi or samples");
  if (opt.search.pair_with != "parent" && opt.search.pair_with != "root")
    throw SearchUsageError("--pair-with " + opt.search.pair_with + ": expected parent or root");
  if (opt.search.confirm < 0) throw SearchUsageError("--confirm must be at least 0");
  const auto& sc = opt.search;
  if (sc.k < 0) throw SearchUsageError("--k must be at least 0 (0 picks the algorithm's default)");
  if (sc.patience < 1) throw SearchUsageError("--patience must be at least 1");
  if (sc.beam_width < 1) throw SearchUsageError("--beam-width must be at least 1");
  if (sc.max_depth < 1) throw SearchUsageError("--max-depth must be at least 1");
  if (!(sc.time_limit_s >= 0)) throw SearchUsageError("--time-limit must be at least 0 (0: none)");
  if (!(sc.epsilon >= 0)) throw SearchUsageError("--epsilon must be at least 0");
  if (!(sc.c_uct >= 0)) throw SearchUsageError("--c-uct must be at least 0");
  if (!(sc.c_pw > 0)) throw SearchUsageError("--c-pw must be above 0");
  if (!(sc.alpha_pw > 0 && sc.alpha_pw <= 1)) throw SearchUsageError("--alpha-pw must be in (0, 1]");
  if (opt.search.pair_with == "parent" && opt.search.confirm < 1)
    throw SearchUsageError("--pair-with parent needs --confirm 1 or more: the result's speedup must come from a "
                           "measurement paired with the root");
  if (opt.timer != "real" && opt.timer != "fixed")
    throw SearchUsageError("--timer " + opt.timer + ": expected real or fixed");
  if (opt.out_dir.empty()) throw SearchUsageError("give --out DIR");
  if (int(!opt.data_dir.empty()) + int(!opt.tasks_file.empty()) + int(opt.data_dir.empty() && opt.tasks_file.empty() &&
                                                                      !opt.workloads.empty()) != 1)
    throw SearchUsageError("give the roots: a dataset directory, --tasks FILE.jsonl or --workloads NAME...");
  if (!opt.tasks_file.empty() && !opt.workloads.empty())
    throw SearchUsageError(
        "--tasks and --workloads are two root sources: give one (--workloads filters a dataset only)");
}

/// The measurement configuration: the dataset's generator configuration (when the roots come from one) with the
/// search's timer, repeats, threads and contraction. Also fills in the seeds `opt` leaves at 0.
dataset::GenConfig measurement_config(SearchOptions& opt, const ojson& manifest) {
  dataset::GenConfig gen;
  if (manifest.is_object() && manifest.contains("config")) gen = dataset::GenConfig::from_json(manifest["config"]["gen"]);
  gen.timer = opt.timer;
  gen.measure = true;
  if (opt.repeats > 0) gen.repeats = opt.repeats;
  gen.threads = opt.threads;
  gen.fp_contract = opt.fp_contract;
  if (opt.search.seed == 0) opt.search.seed = gen.master_seed;
  if (opt.policy.seed == 0) opt.policy.seed = opt.search.seed;
  opt.policy.threads = opt.threads;
  return gen;
}

/// The grader's configuration in a search: every child is measured, against the root, on stream "search-equiv".
eval::GradeConfig search_grade_config(const SearchOptions& opt, const dataset::GenConfig& gen) {
  eval::GradeConfig gc = opt.grade;
  gc.master_seed = opt.search.seed;
  gc.equiv_draws = gen.equiv_draws;
  gc.interp_max_ops = opt.interp_max_ops;
  gc.measure = true;
  gc.equiv_stream = "search-equiv";
  gc.recheck_faster = false;
  gc.pair_with_parent = opt.search.pair_with == "parent";
  return gc;
}

/// The resume key of a run: everything that decides what a root's search gives.
std::string run_key(const SearchOptions& opt, const eval::GradeConfig& gc, const dataset::Timer& timer,
                    const dataset::GenConfig& gen) {
  return core::H({"steptp.search/1", core::dump_py(opt.search.to_json()), policy_identity(opt.policy), timer.env(),
                  gen.timer, std::to_string(gen.repeats), std::to_string(gen.threads),
                  core::dump_py(ojson{{"suspicious", gc.suspicious_speedup},
                                      {"recheck_trials", gc.recheck_trials},
                                      {"faster", gc.faster_threshold},
                                      {"consistency", gc.consistency_enum_limit},
                                      {"baseline", opt.baseline},
                                      {"interp_max_ops", gc.interp_max_ops},
                                      {"strict", gc.strict.enabled ? ojson(gc.strict.max_executions) : ojson(false)}})});
}

ojson failed_root(const Root& root, const SearchOptions& opt, const std::string& why) {
  return {{"result", failed_task_result(root.task_id, root.workload, opt.search, opt.policy.name, why)},
          {"proposals", ojson::array()}, {"transcripts", ojson::array()}};
}

/// OUT/paths/NNN-WORKLOAD.json: the step path of a root's result (search/step_path.hpp), replayable with `steptp
/// replay`, when every step names its candidate (an llm answer whose parameters were not recovered does not).
void write_path_file(const std::string& out_dir, std::size_t n, const ir::Task& root, const ojson& result) {
  if (result.value("status", "") != "ok" || !result["result"].is_object()) return;
  StepPath p;
  p.root = root;
  p.workload = result.value("workload", "");
  for (const auto& st : result["result"]["path"]) {
    if (!st["candidate"].is_string()) return;
    p.steps.push_back({st["strategy"].get<std::string>(), st["candidate"].get<std::string>()});
  }
  p.meta = {{"found_by", {{"command", "steptp search"}, {"algorithm", result["algorithm"]}, {"policy", result["policy"]},
                          {"fp_contract", result.value("fp_contract", false)}}},
            {"task_id", result["task_id"]}, {"speedup", result["result"]["speedup"]},
            {"latency_ns", result["result"]["latency_ns"]}};
  std::string name;
  for (char c : p.workload) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  fs::create_directories(out_dir + "/paths");
  ir::write_file_atomic(fmt::format("{}/paths/{:03d}-{}.json", out_dir, n, name.substr(0, 80)),
                        p.to_text());
}

/// What a run shares between its roots.
struct RunContext {
  const SearchOptions& opt;
  policy::Policy& pol;
  eval::Grader& grader;
  dataset::Timer& timer;
  core::Cache& cache;
  const dataset::GenConfig& gen;
};

/// Searches one root: {result, proposals, transcripts}, stored in the cache under `key`. A root over the work or
/// memory budget, or whose search fails, gives a failed result; a policy error propagates (after `flush`).
ojson search_root(const RunContext& rc, const Root& root, const std::string& key, const std::function<void()>& flush) {
  const SearchOptions& opt = rc.opt;
  if (!root.task) return failed_root(root, opt, root.error);
  try {
    interp::check_step_budget(*root.task, opt.max_steps);
    interp::check_memory_budget(*root.task, opt.max_memory_bytes);
  } catch (const ir::LeirError& e) {
    return failed_root(root, opt, root.task_id + ": " + e.diag().headline());
  }
  ojson done;
  try {
    auto ctx = std::make_shared<eval::TaskContext>(*root.task);
    Search s(opt.search, rc.pol, rc.grader, ctx, root.workload);
    try {
      run_algorithm(s);
    } catch (const policy::PolicyError&) {
      flush();
      throw;
    }
    ojson base = nullptr;
    if (opt.baseline)
      base = runtime::time_library_baseline_best(root.workload, *root.task, rc.gen.repeats, opt.threads);
    done["result"] = task_result(s, root.task_id, root.workload, opt.policy.name, rc.timer, base);
    done["measured"] = measured_lines(s, root.task_id);
    done["proposals"] = ojson::array();
    for (const auto& p : s.proposals()) {
      ojson j = p.to_json();
      j["task_id"] = root.task_id;
      done["proposals"].push_back(std::move(j));
    }
    done["transcripts"] = ojson::array();
    for (const auto& t : s.transcripts()) {
      ojson j = t;
      j["task_id"] = root.task_id;
      done["transcripts"].push_back(std::move(j));
    }
    rc.cache.put("search_results", key, core::dump_py(done));
  } catch (const policy::PolicyError&) {
    throw;
  } catch (const ir::LeirError& e) {
    done = failed_root(root, opt, e.code() + ": " + e.diag().headline());
  } catch (const std::exception& e) {
    done = failed_root(root, opt, e.what());
  }
  return done;
}

}  // namespace

SearchRunResult run_search(const SearchOptions& opt_in) {
  SearchOptions opt = opt_in;
  const auto t0 = std::chrono::steady_clock::now();
  validate_options(opt);
  ojson manifest;
  std::vector<Root> roots = !opt.data_dir.empty()    ? dataset_roots(opt, manifest)
                            : !opt.tasks_file.empty() ? file_roots(opt.tasks_file)
                                                      : workload_roots(opt);
  if (opt.limit > 0 && roots.size() > std::size_t(opt.limit)) roots.resize(opt.limit);
  const dataset::GenConfig gen = measurement_config(opt, manifest);
  // Every policy but llm (whose answers the cache keeps) is made before anything is written, so a bad --policy or
  // --cost-model leaves no output directory behind.
  std::unique_ptr<policy::Policy> pol;
  policy::LlmPolicy* llm = nullptr;
  auto make_pol = [&](core::Cache* c) {
    try {
      pol = policy::make_policy(opt.policy, c, "llm, replay, random, cost", &llm);
    } catch (const policy::PolicySpecError& e) {
      throw SearchInputError(e.what());
    }
  };
  if (opt.policy.name != "llm") make_pol(nullptr);
  std::error_code ec;
  fs::create_directories(opt.out_dir, ec);
  if (ec || !fs::is_directory(opt.out_dir))
    throw SearchInputError("--out " + opt.out_dir + ": cannot create the directory (" + ec.message() + ")");
  core::Cache cache(opt.cache_path.empty() ? opt.out_dir + "/cache.sqlite" : opt.cache_path);
  dataset::Timer timer(gen, &cache);
  dataset::GenConfig cold = gen;
  cold.cold_cache = true;
  dataset::Timer cold_timer(cold, &cache, timer.gate());
  const eval::GradeConfig gc = search_grade_config(opt, gen);
  eval::Grader grader(gc, &timer, &cold_timer);
  if (!pol) make_pol(&cache);
  const std::string key_of_run = run_key(opt, gc, timer, gen);
  std::vector<ojson> results, proposals, transcripts, measured;
  ojson task_times = ojson::array();  // per searched (not resumed) root: wall seconds, measurements per second
  std::int64_t resumed = 0;
  auto write_outputs = [&] {
    ir::write_file_atomic(opt.out_dir + "/results.jsonl", lines(results));
    ir::write_file_atomic(opt.out_dir + "/proposals.jsonl", lines(proposals));
    ir::write_file_atomic(opt.out_dir + "/transcripts.jsonl", lines(transcripts));
    ir::write_file_atomic(opt.out_dir + "/measured.jsonl", lines(measured));
    ojson summary = summarize(results, opt.search, opt.policy.name);
    if (opt.baseline) summary["library_baseline"] = runtime::baseline_library();
    summary["kernel_flags"] = timer.compile_flags();
    if (const ojson d = pol->describe(); !d.is_null()) summary["policy_config"] = d;
    ir::write_file_atomic(opt.out_dir + "/summary.json", core::dump_py(summary) + "\n");
    ir::write_file_atomic(opt.out_dir + "/summary.md", summary_markdown(summary, results));
    return summary;
  };
  const RunContext rc{opt, *pol, grader, timer, cache, gen};
  dataset::Progress progress("search " + opt.search.algorithm + "/" + opt.policy.name, std::int64_t(roots.size()),
                             opt.progress);
  for (const Root& root : roots) {
    ojson done;  // {result, proposals, transcripts}
    const std::string key = root.task ? core::H({key_of_run, core::alpha_canonical(*root.task)}) : "";
    if (!key.empty())
      if (auto v = cache.get("search_results", key)) {
        done = ojson::parse(*v);
        ++resumed;
      }
    if (done.is_null()) {
      const auto t_root = std::chrono::steady_clock::now();
      done = search_root(rc, root, key, [&] { write_outputs(); });
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_root).count();
      const ojson& used = done["result"]["budget"]["measurements"]["used"];
      const double measured = used.is_number() ? used.get<double>() : 0.0;
      task_times.push_back({{"task_id", root.task_id}, {"workload", root.workload}, {"wall_s", wall}, {"measurements", measured},
                            {"measured_per_s", wall > 0 ? measured / wall : 0.0}});
    }
    results.push_back(done["result"]);
    if (root.task) write_path_file(opt.out_dir, results.size(), *root.task, done["result"]);
    for (const auto& p : done["proposals"]) proposals.push_back(p);
    for (const auto& t : done["transcripts"]) transcripts.push_back(t);
    if (done.contains("measured"))
      for (const auto& m : done["measured"]) measured.push_back(m);
    write_outputs();
    progress.tick();
  }
  progress.finish();
  SearchRunResult out;
  out.summary = write_outputs();
  std::int64_t hits = 0, misses = 0;
  for (const auto& [t, hm] : cache.counters())
    if (t == "measurements") hits = hm.first, misses = hm.second;
  out.run = {{"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()},
             {"tasks", roots.size()}, {"resumed_tasks", resumed}, {"env", timer.env()},
             {"measurement_cache", {{"hits", hits}, {"misses", misses}}},
             {"llm_requests", llm ? ojson(llm->requests()) : ojson(nullptr)}, {"task_times", task_times}};
  ir::write_file_atomic(opt.out_dir + "/run.json", core::dump_py(out.run) + "\n");
  return out;
}

}  // namespace steptp::search
