#include "dataset/generate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "step/cache.hpp"
#include "step/dataset_dir.hpp"
#include "dataset/export.hpp"
#include "base/hash.hpp"
#include "step/progress.hpp"
#include "step/prompt.hpp"
#include "step/record.hpp"
#include "step/timing.hpp"
#include "step/tokens.hpp"
#include "dataset/split_units.hpp"
#include "dataset/unit_pipeline.hpp"
#include "ir/task.hpp"
#include "strategies/registry.hpp"

namespace fs = std::filesystem;

namespace steptp::dataset {

std::string shard_dir_name(std::uint32_t i, std::uint32_t n) { return fmt::format("shard-{:04d}-of-{:04d}", i, n); }

namespace {

void add_counters(std::map<std::string, std::int64_t>& into, const std::map<std::string, std::int64_t>& from) {
  for (const auto& [k, v] : from) into[k] += v;
}

}  // namespace

namespace {

/// S1 rejections are input mistakes (a misspelt --workloads name, a malformed --tasks line): they are said on stderr
/// (and recorded in rejects.jsonl), and an empty dataset is refused. With nothing left the error names the
/// rejections itself (one line, the first three); a --workloads name that matches no catalogue workload leads it with
/// E109 at that name, as `workloads emit` and `search` report it.
void report_plan_rejects(const std::vector<Unit>& units, const std::vector<Reject>& plan_rejects) {
  std::vector<std::string> s1;
  std::string lead;
  for (const auto& r : plan_rejects)
    if (r.stage == "S1") {
      s1.push_back(r.unit + ": " + r.reason + (r.detail.empty() ? "" : ": " + r.detail));
      if (lead.empty() && r.reason == "unknown_workload" && r.detail.empty())
        lead = ir::make_diag(Code::E109, "unknown workload (see `steptp workloads list`)", 0, r.unit).headline() + "; ";
    }
  if (units.empty() && !s1.empty()) {
    std::string list;
    for (std::size_t i = 0; i < s1.size() && i < 3; ++i) list += (i ? "; " : "") + s1[i];
    if (s1.size() > 3) list += fmt::format("; and {} more", s1.size() - 3);
    throw std::invalid_argument(lead + "nothing to generate: every selected workload was rejected (" + list + ")");
  }
  if (units.empty()) throw std::invalid_argument("nothing to generate: the selection holds no workload unit");
  for (const auto& w : s1) fmt::print(stderr, "steptp generate: warning: {}\n", w);
}

/// Keeps the units and plan rejections of shard `opt.shard_index` of `opt.shard_count`.
void keep_own_shard(const GenerateOptions& opt, std::vector<Unit>& units, std::vector<Reject>& plan_rejects) {
  std::vector<Unit> mine;
  for (auto& u : units)
    if (shard_of(u.wl.name, u.index, opt.shard_count) == opt.shard_index) mine.push_back(std::move(u));
  units = std::move(mine);
  std::vector<Reject> keep;
  for (auto& r : plan_rejects) {
    auto hash = r.unit.rfind('#');
    std::uint32_t s = 0;
    if (hash != std::string::npos) {
      try {
        s = shard_of(r.unit.substr(0, hash), std::stoi(r.unit.substr(hash + 1)), opt.shard_count);
      } catch (const std::exception&) {
        s = 0;
      }
    }
    if (s == opt.shard_index) keep.push_back(r);
  }
  plan_rejects = std::move(keep);
}

/// S2-S9 of every unit not already done in the cache, on `opt.jobs` threads; each unit is marked done in the cache
/// when all its candidates are stored. Fills the summary's unit counts; throws the first unit's failure.
std::vector<UnitResult> compute_units(const std::vector<Unit>& all_units, const std::vector<Unit>& units,
                                      const GenConfig& gen, const FilterConfig& filter, const GenerateOptions& opt,
                                      Cache& cache, Timer* timer, GenerateSummary& sum) {
  const auto tokens = make_token_counter(gen.tokenizer);  // D012 for a bad tokenizer file
  PipelineEnv env{&gen, &cache, timer, tokens.get(), tokens->count(render_system()), &filter, opt.measure_all, {}};
  if (gen.state_sampling == "strategies") env.root_sites = root_site_counts(all_units, gen);
  // A unit's result depends on the configuration, the token rule (the tokenizer file by content, so a changed file
  // or built-in rule recomputes the units), the length limits it was filtered by before measuring and the
  // strategies' rarity over the whole plan (every shard plans every unit, so all agree).
  std::string rarity;
  for (const auto& [k, v] : env.root_sites) rarity += k + "=" + std::to_string(v) + ";";
  const std::string gh = H({gen.hash(), tokens->rule(),
                            fmt::format("{},{},{},{}", filter.max_prompt_tokens, filter.max_completion_tokens,
                                        filter.max_total_tokens, opt.measure_all ? "all" : "pre"),
                            rarity});
  std::vector<UnitResult> results(units.size());
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < units.size(); ++i) {
    auto hit = cache.get("units", H({"steptp.unit/1", units[i].name(), gh}));
    if (hit) {
      results[i] = UnitResult::from_text(*hit);
      ++sum.units_from_cache;
    } else {
      pending.push_back(i);
    }
  }
  sum.units = std::int64_t(units.size());
  Progress bar("S2-S9 units (workload x shape instance)", std::int64_t(units.size()), opt.progress);
  bar.tick(sum.units_from_cache);
  std::atomic<std::size_t> next{0};
  std::atomic<int> computed{0}, claimed{0};
  std::atomic<bool> failed{false};
  std::string failure;
  std::mutex fail_mu;
  auto worker = [&]() {
    for (;;) {
      if (failed) return;
      if (opt.stop_after_units > 0 && claimed.fetch_add(1) >= opt.stop_after_units) return;
      std::size_t k = next++;
      if (k >= pending.size()) return;
      std::size_t i = pending[k];
      try {
        {
          MeasureGate::Compute section(timer ? timer->gate() : nullptr);  // measurements run alone (§2.7)
          results[i] = process_unit(units[i], env);
        }
        cache.put("units", H({"steptp.unit/1", units[i].name(), gh}), results[i].to_text());
        ++computed;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(fail_mu);
        failed = true;
        failure = units[i].name() + ": " + e.what();
        return;
      }
      bar.tick();
    }
  };
  int jobs = std::max(1, opt.jobs);
  std::vector<std::thread> threads;
  for (int j = 1; j < jobs; ++j) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  bar.finish();
  if (failed) throw std::runtime_error(failure);
  sum.units_computed = computed;
  return results;
}

/// A shard's outputs: its records and rejects, and a shard manifest that `merge` reads.
void write_shard(const fs::path& dir, const GenerateOptions& opt, const GenConfig& gen, const FilterConfig& filter,
                 ExportInput& in) {
  std::sort(in.archive.begin(), in.archive.end(), record_less);
  ir::write_file_atomic((dir / "records.jsonl").string(), to_jsonl(in.archive));
  std::vector<ojson> rj;
  for (const auto& r : in.rejects) rj.push_back(r.to_json());
  ir::write_file_atomic((dir / "rejects.jsonl").string(), to_jsonl(rj));
  ojson m;
  m["schema"] = "steptp.shard/1";
  m["shard"] = {{"index", opt.shard_index}, {"count", opt.shard_count}};
  m["complete"] = true;
  m["gen_hash"] = gen.hash();
  m["config"] = {{"gen", gen.to_json()}, {"filter", filter.to_json()}};
  m["env"] = in.env;
  ojson c = ojson::object();
  for (const auto& [k, v] : in.counters) c[k] = v;
  m["counters"] = c;
  m["records_sha256"] = sha256_hex(to_jsonl(in.archive));
  ir::write_file_atomic((dir / "manifest.json").string(), dump_pretty(m));
}

}  // namespace

GenerateSummary run_generate(const GenConfig& gen, const FilterConfig& filter, const GenerateOptions& opt) {
  if (opt.out.empty()) throw std::invalid_argument("--out is required");
  if (opt.sharded && (opt.shard_count == 0 || opt.shard_index >= opt.shard_count))
    throw std::invalid_argument("--shard i/N needs 0 <= i < N");
  auto t0 = std::chrono::steady_clock::now();
  GenerateSummary sum;
  std::vector<Reject> plan_rejects;
  for (const auto& name : gen.strategies)
    if (!strategy::find(name)) throw std::invalid_argument(strategy::unknown_strategy_message(name));
  make_token_counter(gen.tokenizer);  // a bad tokenizer file fails (D012) before any output is written
  std::vector<Unit> units = plan_all_units(gen, filter, plan_rejects);
  report_plan_rejects(units, plan_rejects);
  const std::vector<Unit> all_units = units;
  if (opt.sharded) keep_own_shard(opt, units, plan_rejects);
  fs::path dir = opt.sharded ? fs::path(opt.out) / "shards" / shard_dir_name(opt.shard_index, opt.shard_count)
                             : fs::path(opt.out);
  std::error_code dir_ec;
  fs::create_directories(dir, dir_ec);
  if (dir_ec || !fs::is_directory(dir))
    throw DatasetDirError(Code::D010, dir.string(),
                          "cannot create the output directory (" + (dir_ec ? dir_ec.message() : "not a directory") + ")");
  // A killed run's temporary files (NAME.tmp.PID, write_file_atomic) would otherwise stay next to the outputs.
  remove_stale_temp_files(dir.string(), {"archive", "chat", "eval"});
  Cache cache(opt.cache_path.empty() ? (dir / "cache.sqlite").string() : opt.cache_path);
  std::unique_ptr<Timer> timer;
  if (gen.measure) timer = std::make_unique<Timer>(gen, &cache);
  std::vector<UnitResult> results = compute_units(all_units, units, gen, filter, opt, cache, timer.get(), sum);
  auto cc = cache.counters();
  sum.candidates = cc["candidates"].first + cc["candidates"].second;
  sum.candidate_cache_hits = cc["candidates"].first;
  if (opt.stop_after_units > 0 && std::size_t(sum.units_from_cache + sum.units_computed) < units.size()) {
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sum.where = dir.string();
    return sum;
  }
  ExportInput in;
  in.gen = gen;
  in.filter = filter;
  in.env = timer ? timer->env() : "";
  in.rejects = plan_rejects;
  in.counters["units"] = std::int64_t(units.size());
  for (auto& r : results) {
    for (auto& rec : r.records) in.archive.push_back(std::move(rec));
    in.rejects.insert(in.rejects.end(), r.rejects.begin(), r.rejects.end());
    add_counters(in.counters, r.counters);
  }
  sum.records = std::int64_t(in.archive.size());
  if (opt.progress)
    fmt::print(stderr, "[S10-S11 filter + export] {} records -> {}\n", sum.records, dir.string());
  if (opt.sharded)
    write_shard(dir, opt, gen, filter, in);
  else
    export_dataset(dir.string(), std::move(in));
  sum.complete = true;
  sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sum.where = dir.string();
  return sum;
}

void run_merge(const std::string& out, std::vector<std::string> shard_dirs, bool require_same_env,
               const FilterConfig* override_filter) {
  if (shard_dirs.empty()) {
    fs::path root = fs::path(out) / "shards";
    if (!fs::is_directory(root)) throw std::invalid_argument("no shard directories under " + root.string());
    for (const auto& e : fs::directory_iterator(root))
      if (e.is_directory() && e.path().filename().string().rfind("shard-", 0) == 0) shard_dirs.push_back(e.path().string());
  }
  std::sort(shard_dirs.begin(), shard_dirs.end());
  if (shard_dirs.empty()) throw std::invalid_argument("no shards to merge");
  ExportInput in;
  std::string gh, env;
  std::int64_t count = -1;
  std::set<std::int64_t> seen;
  for (const auto& d : shard_dirs) {
    fs::path mp = fs::path(d) / "manifest.json";
    if (!fs::exists(mp)) throw DatasetDirError(Code::D004, d, "shard is incomplete (no manifest.json)");
    ojson m = ojson::parse(ir::read_file(mp.string()), nullptr, false);
    if (m.is_discarded() || !m.is_object()) throw DatasetDirError(Code::D003, mp.string(), "not a steptp manifest");
    if (!m.value("complete", false)) throw DatasetDirError(Code::D004, d, "shard is incomplete (a rerun resumes it)");
    std::int64_t n = m["shard"]["count"], i = m["shard"]["index"];
    if (count < 0) {
      count = n;
      gh = m["gen_hash"];
      env = m.value("env", "");
      in.gen = GenConfig::from_json(m["config"]["gen"]);
      in.filter = FilterConfig::from_json(m["config"]["filter"]);
    } else {
      if (n != count) throw std::invalid_argument(d + ": shard count differs from the other shards");
      if (m["gen_hash"] != gh) throw std::invalid_argument(d + ": gen_hash differs from the other shards");
      if (m.value("env", "") != env) {
        if (require_same_env) throw std::invalid_argument(d + ": measurement environment differs (--require-same-env)");
        std::cerr << "steptp: warning: shard " << d << " was measured in another environment\n";
      }
    }
    if (!seen.insert(i).second) throw std::invalid_argument(d + ": shard " + std::to_string(i) + " given twice");
    auto recs = read_jsonl((fs::path(d) / "records.jsonl").string());
    if (sha256_hex(to_jsonl(recs)) != m["records_sha256"].get<std::string>())
      throw std::invalid_argument(d + ": records.jsonl does not match its manifest");
    for (auto& r : recs) in.archive.push_back(std::move(r));
    for (const auto& r : read_jsonl((fs::path(d) / "rejects.jsonl").string())) in.rejects.push_back(Reject::from_json(r));
    for (auto it = m["counters"].begin(); it != m["counters"].end(); ++it) in.counters[it.key()] += it.value().get<std::int64_t>();
  }
  if (std::int64_t(seen.size()) != count)
    throw std::invalid_argument(fmt::format("{} of {} shards present", seen.size(), count));
  if (override_filter) in.filter = *override_filter;
  in.env = env;
  export_dataset(out, std::move(in));
}

}  // namespace steptp::dataset
