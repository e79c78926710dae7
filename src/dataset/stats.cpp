#include "dataset/stats.hpp"

#include "step/tokens.hpp"
#include "strategies/registry.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace steptp::dataset {


namespace {

ojson buckets(const std::vector<double>& v) {
  ojson b{{"<0.9", 0}, {"0.9-1.1", 0}, {"1.1-1.5", 0}, {"1.5-2", 0}, {"2-3", 0}, {">3", 0}};
  for (double x : v) {
    const char* k = x < 0.9 ? "<0.9" : x < 1.1 ? "0.9-1.1" : x < 1.5 ? "1.1-1.5" : x < 2 ? "1.5-2" : x <= 3 ? "2-3" : ">3";
    b[k] = b[k].get<std::int64_t>() + 1;
  }
  return b;
}

void bump(ojson& o, const std::string& k, std::int64_t by = 1) {
  o[k] = (o.contains(k) ? o[k].get<std::int64_t>() : 0) + by;
}

ojson sorted_obj(const ojson& o) {
  std::vector<std::string> keys;
  for (auto it = o.begin(); it != o.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  ojson r = ojson::object();
  for (auto& k : keys) r[k] = o[k];
  return r;
}

/// The token rule of the records (DATASET.md §4): one per run; several joined by "+" (an archive of mixed runs),
/// the built-in rule's name for an empty archive.
std::string token_rule(const std::vector<ojson>& archive) {
  std::set<std::string> rules;
  for (const auto& r : archive)
    if (r.contains("tokens") && r["tokens"].contains("rule") && r["tokens"]["rule"].is_string())
      rules.insert(r["tokens"]["rule"].get<std::string>());
  if (rules.empty()) return kTokenRule;
  std::string out;
  for (const auto& r : rules) out += (out.empty() ? "" : "+") + r;
  return out;
}

}  // namespace

ojson compute_stats(const std::vector<ojson>& archive, const std::vector<Reject>& rejects,
                    const std::map<std::string, std::int64_t>& counters, const FilterOutput& f) {
  ojson s;
  s["schema"] = "steptp.stats/1";
  // funnel
  auto c = [&](const char* k) { auto it = counters.find(k); return it == counters.end() ? std::int64_t(0) : it->second; };
  std::int64_t units = c("units"), roots = c("S3.root_tasks"), enumerated = c("S4.enumerated"),
               cands = c("S4.candidates"), acc = c("S5.accepted"), recs = std::int64_t(archive.size());
  std::int64_t kept = 0, samples = 0;
  for (const char* sp : kSplits) {
    kept += std::int64_t(f.kept.count(sp) ? f.kept.at(sp).size() : 0);
    samples += std::int64_t(f.samples.count(sp) ? f.samples.at(sp).size() : 0);
  }
  auto rate = [](std::int64_t a, std::int64_t b) { return b ? double(a) / double(b) : 0.0; };
  ojson funnel = ojson::array();
  auto stage = [&](const char* name, std::int64_t n, std::int64_t prev) {
    funnel.push_back({{"stage", name}, {"count", n}, {"rate_vs_previous", rate(n, prev)},
                      {"rate_vs_candidates", rate(n, cands)}});
  };
  stage("S2 units", units, units);
  stage("S3 root tasks", roots, units);
  stage("S4 enumerated", enumerated, roots);
  stage("S4 sampled candidates", cands, enumerated);
  stage("S5-S6 verified", acc, cands);
  stage("S7 measured", c("S7.measured"), acc);
  stage("S9 records", recs, acc);
  stage("S10 kept records", kept, recs);
  stage("S11 chat samples", samples, kept);
  s["funnel"] = funnel;
  ojson reasons = ojson::object();
  for (const auto& r : rejects) {
    if (!reasons.contains(r.stage)) reasons[r.stage] = ojson::object();
    bump(reasons[r.stage], r.reason);
  }
  s["rejections"] = sorted_obj(reasons);
  // counts
  ojson by_strategy = ojson::object(), by_sfamily = ojson::object(), by_wfamily = ojson::object(),
        by_suite = ojson::object(), by_split = ojson::object();
  std::map<std::string, std::vector<double>> sp_by;
  std::vector<double> sp_all;
  std::int64_t noisy = 0, measured = 0;
  std::map<std::string, double> root_ns;  // root task id -> latency (the before program of step-1 records)
  std::vector<double> leir, tir, prompt, completion, ratio;
  // Every registered strategy is listed, those without a record with 0 (issue #13: the stats show all 43).
  for (const auto& st : strategy::registry()) by_strategy[std::string(st.name)] = 0;
  for (const auto& r : archive) {
    bump(by_strategy, r["strategy"]["name"]);
    bump(by_sfamily, r["strategy"]["family"]);
    bump(by_wfamily, r["family"]);
    bump(by_suite, r["suite"]);
    if (!r["measurement"].is_null()) {
      double x = r["measurement"]["speedup"];
      sp_by[r["strategy"]["name"]].push_back(x);
      sp_all.push_back(x);
      ++measured;
      noisy += r["measurement"]["noisy"].get<bool>();
      if (r["step"]["index"] == 1) root_ns[r["task_id"].get<std::string>()] = r["measurement"]["before"]["median_ns"].get<double>();
    }
    const auto& t = r["tokens"];
    leir.push_back(t["leir_before"].get<double>());
    tir.push_back(t["tir_before"].get<double>());
    prompt.push_back(t["prompt"].get<double>());
    completion.push_back(t["completion"].get<double>());
    if (t["leir_before"].get<double>() > 0) ratio.push_back(t["tir_before"].get<double>() / t["leir_before"].get<double>());
  }
  ojson multi = ojson::object();
  for (const char* sp : kSplits) {
    ojson o{{"records", f.kept.count(sp) ? f.kept.at(sp).size() : 0},
            {"samples", f.samples.count(sp) ? f.samples.at(sp).size() : 0}};
    ojson per = ojson::object();
    if (f.samples.count(sp))
      for (const auto& smp : f.samples.at(sp)) {
        if (smp.n > 1) bump(multi, std::to_string(smp.n));
        else bump(per, archive[smp.recs[0]]["strategy"]["name"]);
      }
    o["single_answer_per_strategy"] = sorted_obj(per);
    by_split[sp] = o;
  }
  s["counts"] = {{"records_per_strategy", sorted_obj(by_strategy)}, {"records_per_strategy_family", sorted_obj(by_sfamily)},
                 {"records_per_workload_family", sorted_obj(by_wfamily)}, {"records_per_suite", sorted_obj(by_suite)},
                 {"splits", by_split}, {"multi_n_samples_by_n", sorted_obj(multi)}};
  ojson spd = ojson::object();
  for (auto& [k, v] : sp_by) spd[k] = distribution(v);
  std::vector<double> root_us;
  std::int64_t roots_50us = 0;
  for (const auto& [k, ns] : root_ns) {
    root_us.push_back(ns / 1000.0);
    roots_50us += ns >= 50000.0;
  }
  s["speedup"] = {{"measured_records", measured}, {"noisy_share", rate(noisy, measured)},
                  {"overall", distribution(sp_all)}, {"buckets", buckets(sp_all)}, {"per_strategy", spd}};
  s["root_latency_us"] = {{"roots", root_us.size()}, {"share_at_least_50us", rate(roots_50us, std::int64_t(root_us.size()))},
                          {"distribution", distribution(root_us)}};
  double mean_ratio = 0;
  for (double x : ratio) mean_ratio += x;
  s["tokens"] = {{"rule", token_rule(archive)}, {"leir", distribution(leir)}, {"tvmscript", distribution(tir)},
                 {"prompt", distribution(prompt)}, {"completion", distribution(completion)},
                 {"mean_tvmscript_to_leir_ratio", ratio.empty() ? 0.0 : mean_ratio / double(ratio.size())}};
  s["audit"] = f.audit;
  ojson pc = ojson::object();
  for (const auto& [k, v] : counters) pc[k] = v;
  s["pipeline_counters"] = pc;
  return s;
}

std::string render_stats_md(const ojson& s) {
  std::string md = "# steptp dataset statistics\n\n## Funnel\n\n| stage | count | rate vs previous | rate vs candidates |\n|---|---|---|---|\n";
  for (const auto& f : s["funnel"])
    md += fmt::format("| {} | {} | {:.3f} | {:.3f} |\n", f["stage"].get<std::string>(), f["count"].get<std::int64_t>(),
                      f["rate_vs_previous"].get<double>(), f["rate_vs_candidates"].get<double>());
  md += "\n## Rejections\n\n| stage | reason | count |\n|---|---|---|\n";
  for (auto it = s["rejections"].begin(); it != s["rejections"].end(); ++it)
    for (auto jt = it.value().begin(); jt != it.value().end(); ++jt)
      md += fmt::format("| {} | {} | {} |\n", it.key(), jt.key(), jt.value().get<std::int64_t>());
  auto table = [&](const char* title, const ojson& o) {
    md += fmt::format("\n## {}\n\n| key | count |\n|---|---|\n", title);
    for (auto it = o.begin(); it != o.end(); ++it) md += fmt::format("| {} | {} |\n", it.key(), it.value().dump());
  };
  table("Records per strategy", s["counts"]["records_per_strategy"]);
  table("Records per strategy family", s["counts"]["records_per_strategy_family"]);
  table("Records per workload family", s["counts"]["records_per_workload_family"]);
  table("Records per suite", s["counts"]["records_per_suite"]);
  md += "\n## Splits\n\n| split | records | samples |\n|---|---|---|\n";
  for (auto it = s["counts"]["splits"].begin(); it != s["counts"]["splits"].end(); ++it)
    md += fmt::format("| {} | {} | {} |\n", it.key(), it.value()["records"].dump(), it.value()["samples"].dump());
  table("Multi-N samples by N", s["counts"]["multi_n_samples_by_n"]);
  const auto& o = s["speedup"]["overall"];
  md += fmt::format("\n## Speedup\n\nmeasured records: {}, noisy share: {:.3f}\n\n", s["speedup"]["measured_records"].dump(),
                    s["speedup"]["noisy_share"].get<double>());
  if (o.contains("median"))
    md += fmt::format("min {:.3f}, p10 {:.3f}, p25 {:.3f}, median {:.3f}, p75 {:.3f}, p90 {:.3f}, max {:.3f}, geomean {:.3f}\n",
                      o["min"].get<double>(), o["p10"].get<double>(), o["p25"].get<double>(), o["median"].get<double>(),
                      o["p75"].get<double>(), o["p90"].get<double>(), o["max"].get<double>(), o["geomean"].get<double>());
  table("Speedup buckets", s["speedup"]["buckets"]);
  if (s.contains("root_latency_us") && s["root_latency_us"]["distribution"].contains("median")) {
    const auto& rl = s["root_latency_us"];
    const auto& d = rl["distribution"];
    md += fmt::format("\nmeasured roots: {}, share running >= 50 µs: {:.3f}; root latency µs: p10 {:.1f}, median {:.1f}, "
                      "p90 {:.1f}\n",
                      rl["roots"].dump(), rl["share_at_least_50us"].get<double>(), d["p10"].get<double>(),
                      d["median"].get<double>(), d["p90"].get<double>());
  }
  md += "\n## Tokens (" + s["tokens"]["rule"].get<std::string>() + ")\n\n| text | n | median | p90 | max |\n|---|---|---|---|---|\n";
  for (const char* k : {"leir", "tvmscript", "prompt", "completion"}) {
    const auto& d = s["tokens"][k];
    if (d.contains("median"))
      md += fmt::format("| {} | {} | {:.1f} | {:.1f} | {:.0f} |\n", k, d["n"].dump(), d["median"].get<double>(),
                        d["p90"].get<double>(), d["max"].get<double>());
  }
  md += fmt::format("\nmean TVMScript/LEIR token ratio: {:.2f}\n", s["tokens"]["mean_tvmscript_to_leir_ratio"].get<double>());
  md += "\n## Audit (§7.4)\n\n```json\n" + s["audit"].dump(2) + "\n```\n";
  return md;
}

}  // namespace steptp::dataset
