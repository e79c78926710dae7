#include "eval/summary.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

#include "step/distribution.hpp"

namespace steptp::eval {
namespace {

constexpr const char* kGates[] = {"parsed", "differs", "valid", "equivalent", "faster"};
constexpr double kFastP[] = {1.0, 1.2, 1.5, 2.0};

std::string p_key(double p) { return fmt::format("{:.1f}", p); }

/// a / b, or null when b is 0 (a rate over nothing is not 0 %).
ojson ratio(std::int64_t a, std::int64_t b) { return b > 0 ? ojson(double(a) / double(b)) : ojson(nullptr); }


/// Gate block over a set of single-answer result lines.
ojson gate_block(const std::vector<const ojson*>& lines, bool measured) {
  std::map<std::string, std::int64_t> count;
  std::map<std::string, std::map<std::string, std::int64_t>> failures;
  std::int64_t consistent = 0, verified = 0, strict_ran = 0, strict_skipped = 0, strict_rejected = 0;
  std::vector<double> speedups;
  std::map<std::string, std::int64_t> fast;
  for (const ojson* l : lines) {
    const ojson& r = *l;
    for (const char* g : kGates)
      if (r.at(g).get<bool>()) count[g]++;
    if (!r["failed_gate"].is_null()) failures[r["failed_gate"].get<std::string>()][r["reason"].get<std::string>()]++;
    if (r["strategy_consistent"].get<bool>()) consistent++;
    if (r["reasoning_verified"].get<bool>()) verified++;
    // the program's strict stage (step/strict_equiv.hpp), an object once S5 passed
    const ojson* pg = r.contains("programs") && r["programs"].is_array() && !r["programs"].empty() ? &r["programs"][0] : nullptr;
    if (pg && pg->contains("strict_check") && (*pg)["strict_check"].is_object()) {
      const ojson& sc = (*pg)["strict_check"];
      if (sc["ran"].get<bool>()) {
        strict_ran++;
        if (!sc["equivalent"].get<bool>()) strict_rejected++;
      } else {
        strict_skipped++;
      }
    }
    if (r["equivalent"].get<bool>() && r["speedup"].is_number()) {
      double s = r["speedup"].get<double>();
      speedups.push_back(s);
      for (double p : kFastP)
        if (s > p) fast[p_key(p)]++;
    }
  }
  const std::int64_t n = std::int64_t(lines.size());
  ojson b;
  b["answers"] = n;
  ojson counts = ojson::object(), cum = ojson::object(), cond = ojson::object();
  std::int64_t prev = n;
  for (const char* g : kGates) {
    if (!measured && std::string(g) == "faster") {  // not attempted: n/a, not 0 %
      counts[g] = cum[g] = cond[g] = nullptr;
      continue;
    }
    counts[g] = count[g];
    cum[g] = ratio(count[g], n);
    cond[g] = ratio(count[g], prev);
    prev = count[g];
  }
  b["counts"] = counts;
  b["cumulative_rate"] = cum;
  b["conditional_rate"] = cond;
  b["strategy_consistent"] = {{"count", consistent}, {"rate", ratio(consistent, n)}};
  b["reasoning_verified"] = {{"count", verified}, {"rate", ratio(verified, n)}};
  // answers that passed S5 and reached the strict stage of the equivalent gate (step/strict_equiv.hpp)
  b["strict_equivalence"] = {{"ran", strict_ran}, {"rejected", strict_rejected}, {"skipped", strict_skipped}};
  ojson fj = ojson::object();
  for (double p : kFastP) fj[p_key(p)] = measured ? ratio(fast[p_key(p)], n) : ojson(nullptr);
  b["fast_p"] = fj;
  b["speedup_of_equivalent"] = dataset::distribution(speedups);
  ojson fail = ojson::object();
  for (const auto& [gate, reasons] : failures) {
    if (!measured && gate == "faster") continue;
    ojson rj = ojson::object();
    for (const auto& [reason, c] : reasons) rj[reason] = c;
    fail[gate] = rj;
  }
  b["failures"] = fail;
  return b;
}

ojson multi_block(const std::vector<const ojson*>& lines) {
  std::int64_t parsed = 0, meets = 0, all_eq = 0, any_fast = 0, programs = 0, distinct = 0, strategies = 0;
  std::map<std::string, std::int64_t> prog_gate;
  std::vector<double> best;
  for (const ojson* l : lines) {
    const ojson& r = *l;
    const ojson& m = r["multi"];
    if (r["parsed"].get<bool>()) parsed++;
    if (m["meets_n"].get<bool>()) meets++;
    if (m["all_equivalent"].get<bool>()) all_eq++;
    if (m["any_faster"].get<bool>()) any_fast++;
    distinct += m["distinct_differing"].get<std::int64_t>();
    strategies += m["distinct_strategies"].get<std::int64_t>();
    for (const auto& p : r["programs"]) {
      programs++;
      for (const char* g : {"differs", "valid", "equivalent", "faster"})
        if (p[g].get<bool>()) prog_gate[g]++;
    }
    if (m["best_speedup"].is_number()) best.push_back(m["best_speedup"].get<double>());
  }
  const std::int64_t n = std::int64_t(lines.size());
  ojson b;
  b["answers"] = n;
  b["parsed"] = ratio(parsed, n);
  b["meets_n"] = ratio(meets, n);
  b["all_equivalent"] = ratio(all_eq, n);
  b["any_faster"] = ratio(any_fast, n);
  b["mean_distinct_differing_programs"] = ratio(distinct, n);
  b["mean_distinct_strategies"] = ratio(strategies, n);
  b["programs_returned"] = programs;
  ojson pg = ojson::object();
  for (const char* g : {"differs", "valid", "equivalent", "faster"}) pg[g] = ratio(prog_gate[g], programs);
  b["per_program_rate"] = pg;
  b["best_speedup"] = dataset::distribution(best);
  return b;
}

}  // namespace

std::string pct(const ojson& rate) { return rate.is_number() ? fmt::format("{:.1f}%", 100 * rate.get<double>()) : "n/a"; }

ojson compute_summary(const std::vector<ojson>& results, const ojson& meta) {
  ojson s = meta;
  std::vector<const ojson*> single, multi;
  std::map<std::string, std::vector<const ojson*>> by_strategy;
  std::map<std::string, std::set<std::int64_t>> prompt_eq, prompt_fast;  // pass@k: prompt id -> samples
  std::set<std::string> single_prompts;
  std::int64_t ptok = 0, ctok = 0, no_usage = 0, none = 0, errors = 0, truncated = 0, no_think = 0;
  for (const auto& r : results) {
    for (const auto& rep : r["replies"]) {
      if (rep["prompt_tokens"].get<std::int64_t>() < 0) no_usage++;
      else ptok += rep["prompt_tokens"].get<std::int64_t>(), ctok += std::max<std::int64_t>(0, rep["completion_tokens"].get<std::int64_t>());
      if (rep["none"].get<bool>()) none++;
      if (!rep["error"].is_null()) errors++;
      if (rep["truncated"].get<bool>()) truncated++;
    }
    if (r["parsed"].get<bool>() && !r["think_present"].get<bool>()) no_think++;
    if (r["reason"] == "no_proposal") continue;  // the policy gave nothing (a replay file without this sample)
    if (r["n"].get<int>() <= 1) {
      single.push_back(&r);
      const std::string id = r["id"];
      single_prompts.insert(id);
      by_strategy[r["strategy"].is_string() ? r["strategy"].get<std::string>() : "(unparsed)"].push_back(&r);
      if (r["equivalent"].get<bool>()) prompt_eq[id].insert(r["sample"].get<std::int64_t>());
      if (r["faster"].get<bool>()) prompt_fast[id].insert(r["sample"].get<std::int64_t>());
    } else {
      multi.push_back(&r);
    }
  }
  s["answers"] = results.size();
  s["replies"] = {{"no_proposal", none}, {"policy_errors", errors}, {"truncated", truncated},
                  {"parsed_without_think", no_think}};
  s["usage"] = {{"prompt_tokens", ptok}, {"completion_tokens", ctok}, {"replies_without_usage", no_usage}};
  const bool measured = meta.value("measured", false);
  ojson sj = gate_block(single, measured);
  sj["prompts"] = single_prompts.size();
  sj["pass_at_k"] = {{"equivalent", ratio(std::int64_t(prompt_eq.size()), std::int64_t(single_prompts.size()))},
                     {"faster", ratio(std::int64_t(prompt_fast.size()), std::int64_t(single_prompts.size()))}};
  s["single"] = sj;
  ojson ps = ojson::object();
  for (const auto& [name, lines] : by_strategy) ps[name] = gate_block(lines, measured);
  s["per_strategy"] = ps;
  s["multi"] = multi_block(multi);
  if (!measured) s["multi"]["any_faster"] = s["multi"]["per_program_rate"]["faster"] = nullptr;
  return s;
}

std::string render_summary_md(const ojson& s) {
  std::string md = "# steptp eval summary\n\n";
  md += fmt::format("Split `{}`, policy `{}`{}, {} prompts x {} sample(s) = {} answers, measured: {}{}.\n\n",
                    s.value("split", ""), s.value("policy", ""),
                    s.contains("model") && s["model"].is_string() ? " (model `" + s["model"].get<std::string>() + "`)" : "",
                    s.value("prompts", 0), s.value("samples", 1), s.value("answers", 0), s.value("measured", false) ? "yes" : "no",
                    s["timer"] == "fixed" ? " (fixed timer: a latency model, not real timings)" : "");
  const ojson& g = s["single"];
  md += fmt::format("## Single-answer prompts (n = 1): {} answers\n\n", g["answers"].get<std::int64_t>());
  md += "| gate | count | cumulative rate | conditional rate |\n|---|---:|---:|---:|\n";
  for (const char* k : kGates)
    md += fmt::format("| {} | {} | {} | {} |\n", k, g["counts"][k].is_null() ? "n/a (not measured)" : g["counts"][k].dump(),
                      pct(g["cumulative_rate"][k]), pct(g["conditional_rate"][k]));
  md += fmt::format("\nInformational: strategy_consistent {} ({}), reasoning_verified {} ({}).\n",
                    g["strategy_consistent"]["count"].get<std::int64_t>(), pct(g["strategy_consistent"]["rate"]),
                    g["reasoning_verified"]["count"].get<std::int64_t>(), pct(g["reasoning_verified"]["rate"]));
  md += "\nEquivalent with speedup > p: ";
  bool first = true;
  for (auto it = g["fast_p"].begin(); it != g["fast_p"].end(); ++it, first = false)
    md += fmt::format("{}p = {}: {}", first ? "" : ", ", it.key(), pct(it.value()));
  if (g["pass_at_k"]["equivalent"].is_number() && s.value("samples", 1) > 1)
    md += fmt::format(".\npass@{} (prompts with at least one proposal): equivalent {}, faster {}", s.value("samples", 1),
                      pct(g["pass_at_k"]["equivalent"]), pct(g["pass_at_k"]["faster"]));
  const ojson& d = g["speedup_of_equivalent"];
  if (d["n"].get<std::int64_t>() > 0)
    md += fmt::format(".\nSpeedup of equivalent answers (n = {}): min {:.3f}, median {:.3f}, max {:.3f}, geomean {:.3f}",
                      d["n"].get<std::int64_t>(), d["min"].get<double>(), d["median"].get<double>(),
                      d["max"].get<double>(), d["geomean"].get<double>());
  md += ".\n";
  if (g.contains("strict_equivalence")) {
    const ojson& sc = g["strict_equivalence"];
    md += fmt::format("\nStrict equivalence stage (after S5): ran on {} answers, rejected {} that S5 passed; skipped on {} "
                      "(over its statement budget, or turned off).\n",
                      sc["ran"].get<std::int64_t>(), sc["rejected"].get<std::int64_t>(), sc["skipped"].get<std::int64_t>());
  }
  if (!g["failures"].empty()) {
    md += "\nFailures by gate and reason:\n";
    for (auto it = g["failures"].begin(); it != g["failures"].end(); ++it) {
      md += "- " + it.key() + ":";
      for (auto r = it.value().begin(); r != it.value().end(); ++r) md += fmt::format(" {} {},", r.key(), r.value().get<std::int64_t>());
      md.pop_back();
      md += "\n";
    }
  }
  md += "\n## Per claimed strategy\n\n| strategy | answers | parsed | differs | valid | equivalent | faster | consistent | reasoning verified |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (auto it = s["per_strategy"].begin(); it != s["per_strategy"].end(); ++it) {
    const ojson& b = it.value();
    md += fmt::format("| {} | {} |", it.key(), b["answers"].get<std::int64_t>());
    for (const char* k : kGates) md += " " + (b["counts"][k].is_null() ? std::string("n/a") : b["counts"][k].dump()) + " |";
    md += fmt::format(" {} | {} |\n", b["strategy_consistent"]["count"].get<std::int64_t>(),
                      b["reasoning_verified"]["count"].get<std::int64_t>());
  }
  const ojson& m = s["multi"];
  if (m["answers"].get<std::int64_t>() > 0) {
    md += fmt::format("\n## Multi-answer prompts (n >= 2): {} answers\n\n", m["answers"].get<std::int64_t>());
    md += fmt::format("parsed {}, meets_n {}, all_equivalent {}, any_faster {}; mean distinct differing programs {:.2f}, "
                      "mean distinct strategies {:.2f}; per program returned ({}): differs {}, valid {}, equivalent {}, "
                      "faster {}.\n",
                      pct(m["parsed"]), pct(m["meets_n"]), pct(m["all_equivalent"]), pct(m["any_faster"]),
                      m["mean_distinct_differing_programs"].get<double>(), m["mean_distinct_strategies"].get<double>(),
                      m["programs_returned"].get<std::int64_t>(), pct(m["per_program_rate"]["differs"]),
                      pct(m["per_program_rate"]["valid"]), pct(m["per_program_rate"]["equivalent"]),
                      pct(m["per_program_rate"]["faster"]));
  }
  const ojson& u = s["usage"];
  md += fmt::format("\nTokens: prompt {}, completion {} ({} replies without usage). Replies: {} without proposal, {} policy "
                    "errors, {} truncated.\n",
                    u["prompt_tokens"].get<std::int64_t>(), u["completion_tokens"].get<std::int64_t>(),
                    u["replies_without_usage"].get<std::int64_t>(), s["replies"]["no_proposal"].get<std::int64_t>(),
                    s["replies"]["policy_errors"].get<std::int64_t>(), s["replies"]["truncated"].get<std::int64_t>());
  return md;
}

}  // namespace steptp::eval
