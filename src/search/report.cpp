#include "search/report.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "ir/canon.hpp"
#include "ir/printer.hpp"
#include "runtime/compile.hpp"
#include "runtime/library_baseline.hpp"

namespace steptp::search {
namespace {

ojson latency_of(const ojson& side) {
  return {{"median_ns", side["median_ns"]}, {"q1_ns", side["q1_ns"]}, {"q3_ns", side["q3_ns"]},
          {"iqr_ns", side["iqr_ns"]}};
}

ojson path_to(const Search& s, int node) {
  std::vector<int> chain;
  for (int v = node; v > 0; v = s.nodes()[v].parent) chain.push_back(v);
  std::reverse(chain.begin(), chain.end());
  ojson path = ojson::array();
  for (int v : chain) {
    const Node& n = s.nodes()[v];
    path.push_back({{"strategy", n.strategy}, {"candidate", n.candidate.empty() ? ojson(nullptr) : ojson(n.candidate)},
                    {"params", n.params}, {"speedup", n.speedup}});
  }
  return path;
}

ojson budget_of(const Search& s) {
  const auto& c = s.config();
  return {{"proposals", {{"limit", c.proposals}, {"used", s.proposals_used()}, {"unused", c.proposals - s.proposals_used()}}},
          {"measurements",
           {{"limit", c.measurements}, {"used", s.measurements_used()}, {"unused", c.measurements - s.measurements_used()},
            {"by_policy", s.policy_measurements()}}},
          {"stop_reason", s.stop_reason()}};
}

/// The SearchConfig::confirm leading nodes (not noisy, faster than the root by their search-time speedup, best
/// first) re-measured paired with the root in one batch, so that the root runs once per round for all of them
/// (DATASET.md §9.1). Each takes the root-paired speedup, noisy flag and measurement; a failed re-measurement
/// marks it noisy. Returns the lines of `confirmed` ({node, speedup_search, speedup, noisy}) and fills `ids`.
ojson confirm_leaders(Search& s, dataset::Timer& timer, std::vector<int>& ids) {
  std::vector<int> order;
  for (const Node& n : s.nodes())
    if (n.id > 0 && !n.noisy && n.speedup > 1.0) order.push_back(n.id);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return s.nodes()[a].speedup > s.nodes()[b].speedup; });
  if (order.size() > std::size_t(std::max(0, s.config().confirm))) order.resize(std::size_t(std::max(0, s.config().confirm)));
  ojson lines = ojson::array();
  if (order.empty()) return lines;
  const std::string flags = timer.compile_flags();
  const dataset::TimedProgram root{&s.root().before(), core::prog_key(s.root().before(), flags)};
  std::vector<dataset::TimedProgram> afters;
  for (int v : order) afters.push_back({&s.nodes()[v].ctx->before(), core::prog_key(s.nodes()[v].ctx->before(), flags)});
  const auto outcomes = timer.measure_batch(root, afters, nullptr);
  for (std::size_t i = 0; i < order.size(); ++i) {
    Node& n = s.nodes()[order[i]];
    ojson line{{"node", n.id}, {"speedup_search", n.speedup}};
    if (outcomes[i].error.empty()) {
      n.adopt_root_measurement(outcomes[i].measurement);
    } else {
      n.noisy = true;
      line["error"] = outcomes[i].error;
    }
    line["speedup"] = n.speedup;
    line["noisy"] = n.noisy;
    lines.push_back(std::move(line));
    ids.push_back(n.id);
  }
  return lines;
}

}  // namespace

ojson task_result(Search& s, const std::string& task_id, const std::string& workload, const std::string& policy,
                  dataset::Timer& timer, const ojson& baseline) {
  ojson r;
  r["task_id"] = task_id;
  r["workload"] = workload;
  r["algorithm"] = s.config().algorithm;
  r["policy"] = policy;
  r["fp_contract"] = timer.fp_contract();
  r["status"] = "ok";
  r["error"] = nullptr;
  // best: the fastest non-noisy node faster than the root; suspicious ones must pass the re-check. When none is,
  // the root itself is the result (a search never reports a program slower than the one it started from).
  // With confirmation, only the confirmed nodes can be the result (their measurement is the root-paired one).
  std::vector<int> confirmed;
  const ojson confirmed_lines = s.config().confirm > 0 ? confirm_leaders(s, timer, confirmed) : ojson::array();
  std::vector<int> order;
  for (const Node& n : s.nodes())
    if (n.id > 0 && !n.noisy && n.speedup > 1.0 &&
        (s.config().confirm <= 0 || std::find(confirmed.begin(), confirmed.end(), n.id) != confirmed.end()))
      order.push_back(n.id);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return s.nodes()[a].speedup > s.nodes()[b].speedup; });
  ojson rechecks = ojson::array();
  int best = 0;
  for (int v : order) {
    const Node& n = s.nodes()[v];
    const std::string trigger = s.grader().recheck_trigger(s.root(), n.speedup);
    if (trigger.empty()) {
      best = v;
      break;
    }
    ojson rc = s.grader().recheck(s.root(), n.ctx->before(), trigger);
    ojson line{{"node", v}, {"speedup", n.speedup}, {"trigger", trigger}, {"equivalent", rc["equivalent"]},
               {"speedup_recheck", rc["speedup"]}, {"noisy", rc["noisy"]}, {"passed", rc["passed"]},
               {"detail", rc["detail"]}};
    rechecks.push_back(line);
    if (rc["passed"].get<bool>()) {
      best = v;
      break;
    }
  }
  // root latency: from the best pair, else the first measured node, else a root-against-root measurement
  ojson root_lat = nullptr;
  int ref = best;
  if (ref == 0)
    for (const Node& n : s.nodes())
      if (n.id > 0 && n.parent == 0 && n.measurement.is_object()) {
        ref = n.id;
        break;
      }
  if (ref > 0) root_lat = latency_of(s.nodes()[ref].measurement["before"]);
  else {
    const std::string flags = timer.compile_flags();
    const dataset::TimedProgram tr{&s.root().before(), core::prog_key(s.root().before(), flags)};
    try {
      root_lat = latency_of(timer.measure(tr, tr, nullptr)["before"]);
    } catch (const std::exception& e) {
      root_lat = {{"error", e.what()}};
    }
  }
  r["root"] = {{"leir", s.root().printed()}, {"latency", root_lat}, {"intensity", s.root().intensity()}};
  r["baseline"] = baseline;
  {
    const Node& n = s.nodes()[best];
    const ojson& lat = best > 0 ? n.measurement["after"]["median_ns"] : root_lat.value("median_ns", ojson(nullptr));
    const double ns = lat.is_number() ? lat.get<double>() : 0.0;
    ojson vs_base = nullptr;
    if (baseline.is_object() && baseline.contains("median_ns") && ns > 0)
      vs_base = baseline["median_ns"].get<double>() / ns;
    r["result"] = {{"node", best}, {"improved", best > 0}, {"leir", n.ctx->printed()}, {"speedup", n.speedup},
                   {"latency_ns", ns > 0 ? ojson(ns) : ojson(nullptr)}, {"speedup_vs_baseline", vs_base},
                   {"noisy", n.noisy}, {"path", path_to(s, best)}};
  }
  r["confirmed"] = confirmed_lines;
  r["rechecks"] = rechecks;
  r["budget"] = budget_of(s);
  std::map<std::string, int> outcomes;
  for (const Proposal& p : s.proposals()) ++outcomes[p.reason.empty() ? "accepted" : p.reason];
  r["outcomes"] = ojson::object();
  for (const auto& [k, v] : outcomes) r["outcomes"][k] = v;
  ojson nodes = ojson::array();
  for (const Node& n : s.nodes())
    nodes.push_back({{"id", n.id}, {"parent", n.parent}, {"depth", n.depth}, {"strategy", n.strategy},
                     {"candidate", n.candidate.empty() ? ojson(nullptr) : ojson(n.candidate)}, {"speedup", n.speedup},
                     {"speedup_vs_parent", n.speedup_vs_parent}, {"noisy", n.noisy},
                     {"check", n.check.empty() ? ojson(nullptr) : ojson(n.check)}, {"children", n.children}, {"asks", n.asks}, {"visits", n.visits},
                     {"value", n.value}, {"exhausted", n.exhausted}});
  r["nodes"] = nodes;
  r["llm"] = s.llm_usage();
  return r;
}

ojson measured_lines(const Search& s, const std::string& task_id) {
  ojson out = ojson::array();
  for (const Node& n : s.nodes()) {
    if (n.id == 0 || !n.measurement.is_object() || n.paired_with < 0) continue;
    const ir::Task& b = s.nodes()[n.paired_with].ctx->before();
    const ojson task = ojson::parse(ir::task_to_json(b));
    out.push_back({{"task_id", task_id}, {"workload", b.workload}, {"suite", b.suite}, {"node", n.id},
                   {"paired_with", n.paired_with}, {"strategy", n.strategy},
                   {"before", {{"leir", task["leir"]}, {"known", task["known"]}}},
                   {"after", {{"leir", n.ctx->printed()}}}, {"measurement", n.measurement}});
  }
  return out;
}

ojson failed_task_result(const std::string& task_id, const std::string& workload, const SearchConfig& cfg,
                         const std::string& policy, const std::string& error) {
  return {{"task_id", task_id}, {"workload", workload}, {"algorithm", cfg.algorithm}, {"policy", policy},
          {"status", "error"}, {"error", error}, {"root", nullptr}, {"baseline", nullptr}, {"result", nullptr},
          {"rechecks", ojson::array()},
          {"budget", {{"proposals", {{"limit", cfg.proposals}, {"used", 0}, {"unused", cfg.proposals}}},
                      {"measurements",
                       {{"limit", cfg.measurements}, {"used", 0}, {"unused", cfg.measurements}, {"by_policy", 0}}},
                      {"stop_reason", "error"}}},
          {"outcomes", ojson::object()}, {"nodes", ojson::array()}, {"llm", nullptr}};
}

const std::vector<double>& fast_p_thresholds() {
  static const std::vector<double> v{0.0, 1.0, 1.5, 2.0, 3.0};
  return v;
}

namespace {

std::string p_key(double p) { return p == 0 ? "0" : fmt::format("{:.1f}", p); }

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / double(v.size()));
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

ojson summarize(const std::vector<ojson>& results, const SearchConfig& cfg, const std::string& policy) {
  ojson s;
  s["algorithm"] = cfg.algorithm;
  s["policy"] = policy;
  s["config"] = cfg.to_json();
  const std::size_t n = results.size();
  s["tasks"] = n;
  std::size_t errors = 0, improved = 0, with_base = 0;
  std::vector<double> best, best_base;
  std::map<std::string, std::int64_t> outcomes;
  double use_p = 0, use_m = 0;
  std::map<std::string, std::size_t> naive_hits, base_hits;
  for (const auto& r : results) {
    if (r["status"] != "ok") ++errors;
    const bool has = r["result"].is_object();
    const double sp = has ? r["result"]["speedup"].get<double>() : 1.0;
    improved += has && r["result"].value("improved", false);
    best.push_back(sp);
    const bool base = r["baseline"].is_object() && r["baseline"].contains("median_ns");
    std::optional<double> vb;
    if (base) {
      ++with_base;
      if (has && r["result"]["speedup_vs_baseline"].is_number()) vb = r["result"]["speedup_vs_baseline"].get<double>();
      best_base.push_back(vb ? *vb : 0.0);
    }
    for (double p : fast_p_thresholds()) {
      if (has && (p == 0 || sp > p)) ++naive_hits[p_key(p)];
      if (vb && (p == 0 || *vb > p)) ++base_hits[p_key(p)];
    }
    use_p += r["budget"]["proposals"]["used"].get<double>() / std::max(1, cfg.proposals);
    use_m += r["budget"]["measurements"]["used"].get<double>() / std::max(1, cfg.measurements);
    for (const auto& [k, v] : r["outcomes"].items()) outcomes[k] += v.get<std::int64_t>();
  }
  s["errors"] = errors;
  s["improved"] = improved;
  auto rates = [](const std::map<std::string, std::size_t>& hits, std::size_t total) {
    ojson o = ojson::object();
    for (double p : fast_p_thresholds())
      o[p_key(p)] = total ? ojson(double(hits.count(p_key(p)) ? hits.at(p_key(p)) : 0) / double(total)) : ojson(nullptr);
    return o;
  };
  s["fast_p"] = {{"naive", rates(naive_hits, n)}, {"baseline", rates(base_hits, with_base)}};
  s["fast_p"]["baseline"]["tasks"] = with_base;
  s["geomean_speedup"] = n ? ojson(geomean(best)) : ojson(nullptr);
  s["median_speedup"] = n ? ojson(median(best)) : ojson(nullptr);
  std::vector<double> pos;
  for (double x : best_base)
    if (x > 0) pos.push_back(x);
  s["geomean_speedup_vs_baseline"] = pos.empty() ? ojson(nullptr) : ojson(geomean(pos));
  s["mean_budget_use"] = {{"proposals", n ? ojson(use_p / double(n)) : ojson(nullptr)},
                          {"measurements", n ? ojson(use_m / double(n)) : ojson(nullptr)}};
  s["outcomes"] = ojson::object();
  for (const auto& [k, v] : outcomes) s["outcomes"][k] = v;
  return s;
}

/// "Library baseline: OpenBLAS core Cooperlake (OpenBLAS 0.3.21 ...); sgemm check max rel err 4.4e-07; run without
/// OPENBLAS_CORETYPE=Haswell." (runtime::baseline_library()).
static std::string library_baseline_line(const ojson& b) {
  const ojson& lib = b["library"];
  std::string line = fmt::format("Library baseline: OpenBLAS core {} ({}); sgemm check max rel err {:.2g}",
                                 lib.value("openblas_core", "?"), lib.value("openblas_config", "?"),
                                 b.value("core_check_max_rel_err", -1.0));
  std::string dropped, forced;
  for (const auto& [k, v] : b["dropped"].items()) dropped += (dropped.empty() ? "" : ", ") + k + "=" + v.get<std::string>();
  for (const char* k : runtime::kBlasForcingVars)
    if (lib.contains(k) && lib[k].is_string()) forced += (forced.empty() ? "" : ", ") + std::string(k) + "=" + lib[k].get<std::string>();
  if (!dropped.empty()) line += "; run without " + dropped;
  if (!forced.empty()) line += "; forced by " + forced;
  if (b.contains("kept_reason") && b["kept_reason"].is_string()) line += " (" + b["kept_reason"].get<std::string>() + ")";
  if (b.contains("forced_reason") && b["forced_reason"].is_string())
    line += " (" + b["forced_reason"].get<std::string>() + ")";
  return line + ".\n\n";
}

std::string summary_markdown(const ojson& s, const std::vector<ojson>& results) {
  auto num = [](const ojson& v, const char* f = "{:.2f}") { return v.is_number() ? fmt::format(fmt::runtime(f), v.get<double>()) : std::string("–"); };
  std::string md = fmt::format("# steptp search: {} / {}\n\n", s["algorithm"].get<std::string>(), s["policy"].get<std::string>());
  md += fmt::format("{} tasks, {} improved on the naive program, {} errors. Budgets per task: {} proposals, {} measurements.\n\n",
                    s["tasks"].get<std::size_t>(), s["improved"].get<std::size_t>(), s["errors"].get<std::size_t>(),
                    s["config"]["proposals"].get<int>(), s["config"]["measurements"].get<int>());
  md += "| over | tasks |";
  for (double p : fast_p_thresholds()) md += " fast_" + p_key(p) + " |";
  md += "\n|---|---|";
  for (std::size_t i = 0; i < fast_p_thresholds().size(); ++i) md += "---|";
  md += "\n";
  for (const char* over : {"naive", "baseline"}) {
    const auto& f = s["fast_p"][over];
    md += fmt::format("| {} | {} |", over, over == std::string("naive") ? s["tasks"].get<std::size_t>() : f["tasks"].get<std::size_t>());
    for (double p : fast_p_thresholds()) md += " " + num(f[p_key(p)]) + " |";
    md += "\n";
  }
  md += fmt::format("\nGeomean speedup over naive {}x, median {}x; geomean over the library baseline {}x. Mean budget "
                    "use: proposals {}, measurements {}.\n\n",
                    num(s["geomean_speedup"]), num(s["median_speedup"]), num(s["geomean_speedup_vs_baseline"]),
                    num(s["mean_budget_use"]["proposals"]), num(s["mean_budget_use"]["measurements"]));
  if (const auto lib = s.find("library_baseline"); lib != s.end() && lib->is_object())
    md += library_baseline_line(*lib);
  if (const auto pc = s.find("policy_config"); pc != s.end() && pc->is_object())
    md += fmt::format("Cost model: {} ({}).\n\n", pc->value("model", "?"), pc->value("chosen_by", "?"));
  md += "| workload | root ms | baseline ms | best ms | speedup | vs baseline | path | proposals | measurements | stop |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : results) {
    if (r["status"] != "ok") {
      md += fmt::format("| {} | error: {} |||||||||\n", r["workload"].get<std::string>(), r["error"].get<std::string>());
      continue;
    }
    auto ms = [&](const ojson& v) { return v.is_number() ? fmt::format("{:.4g}", v.get<double>() / 1e6) : std::string("–"); };
    const ojson& res = r["result"];
    std::string path;
    if (res.is_object())
      for (const auto& st : res["path"]) path += (path.empty() ? "" : " → ") + st["strategy"].get<std::string>();
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", r["workload"].get<std::string>(),
                      ms(r["root"]["latency"].value("median_ns", ojson(nullptr))),
                      ms(r["baseline"].is_object() ? r["baseline"].value("median_ns", ojson(nullptr)) : ojson(nullptr)),
                      ms(res.is_object() ? res["latency_ns"] : ojson(nullptr)),
                      res.is_object() ? num(res["speedup"]) : "–",
                      res.is_object() ? num(res["speedup_vs_baseline"]) : "–", path.empty() ? "–" : path,
                      r["budget"]["proposals"]["used"].get<int>(), r["budget"]["measurements"]["used"].get<int>(),
                      r["budget"]["stop_reason"].get<std::string>());
  }
  return md;
}

}  // namespace steptp::search
