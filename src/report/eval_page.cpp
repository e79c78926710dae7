// The eval section of `steptp report` (summary.json and results.jsonl of DATASET.md §8).
#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "report/pages.hpp"

namespace steptp::report {
namespace {

constexpr const char* kGates[] = {"parsed", "differs", "valid", "equivalent", "faster"};

std::string gate_table(const ojson& block) {
  std::vector<std::vector<std::string>> rows;
  for (const char* g : kGates)
    rows.push_back({g, field(block, "counts").contains(g) && !field(block, "counts")[g].is_null()
                           ? num(field(block, "counts")[g])
                           : "n/a (not measured)",
                    pct(field(field(block, "cumulative_rate"), g)), pct(field(field(block, "conditional_rate"), g))});
  return table({"gate", "answers passing", "cumulative rate", "conditional rate"}, rows);
}

/// A value as a gnuplot number: rates of null give 0 (drawn as an empty bar; the tables say n/a).

}  // namespace

std::string eval_section(const std::string& dir, Plotter& plot) {
  const std::filesystem::path d(dir);
  const ojson s = read_json((d / "summary.json").string());
  const std::vector<ojson> results = read_jsonl_if_present((d / "results.jsonl").string());
  std::string h = fmt::format(
      "<p>Split <b>{}</b>, policy <b>{}</b>{}; {} prompts, {} sample(s) each, {} answers; measured: {}{}.</p>\n",
      esc(s.value("split", "?")), esc(s.value("policy", "?")),
      field(s, "model").is_string() ? " (model <code>" + esc(s["model"].get<std::string>()) + "</code>)" : "",
      num(field(s, "prompts")), num(field(s, "samples")), num(field(s, "answers")),
      s.value("measured", false) ? "yes" : "no",
      field(s, "timer") == "fixed" ? " (fixed timer: a latency model, not real timings)" : "");
  const ojson& single = field(s, "single");
  h += fmt::format("<h3>Gate funnel, single-answer prompts ({} answers)</h3>\n", num(field(single, "answers")));
  h += gate_table(single);
  std::vector<std::vector<std::string>> g;
  for (const char* gate : kGates)
    g.push_back({gate, gp_number(field(field(single, "cumulative_rate"), gate), "0"),
                 gp_number(field(field(single, "conditional_rate"), gate), "0")});
  h += plot.svg("eval-funnel", "Share of answers passing each gate (cumulative) and given the previous gate (conditional)",
                datablock("g", g) +
                    "set style data histogram\nset style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
                    "set yrange [0:1.05]\nset ylabel 'share of answers'\nset key top right\n"
                    "plot $g using 2:xtic(1) title 'cumulative' lc rgb '#4477aa', '' using 3 title 'conditional' "
                    "lc rgb '#ccbb44'",
                640, 280);
  const ojson& fp = field(single, "fast_p");
  if (fp.is_object() && !fp.empty()) {
    std::string line = "<p>fast_p (equivalent with speedup &gt; p, over answers): ";
    bool first = true;
    for (auto it = fp.begin(); it != fp.end(); ++it, first = false)
      line += fmt::format("{}p = {}: <b>{}</b>", first ? "" : ", ", esc(it.key()), pct(it.value()));
    h += line + ".</p>\n";
  }
  // per claimed strategy, in canonical order, unparsed last
  const ojson& ps = field(s, "per_strategy");
  std::vector<std::string> names;
  for (const auto& st : catalogue())
    if (ps.is_object() && ps.contains(st.name)) names.emplace_back(st.name);
  if (ps.is_object())
    for (auto it = ps.begin(); it != ps.end(); ++it)
      if (std::find(names.begin(), names.end(), it.key()) == names.end()) names.push_back(it.key());
  h += "<h3>Gate funnel per claimed strategy</h3>\n";
  std::vector<std::vector<std::string>> rows, data;
  for (const auto& n : names) {
    const ojson& b = ps[n];
    std::vector<std::string> row{esc(n), num(field(b, "answers"))};
    std::vector<std::string> drow{gp_str(n)};
    for (const char* gate : kGates) {
      row.push_back(fmt::format("{} ({})", num(field(field(b, "counts"), gate)), pct(field(field(b, "cumulative_rate"), gate))));
      drow.push_back(gp_number(field(field(b, "cumulative_rate"), gate), "0"));
    }
    rows.push_back(std::move(row));
    data.push_back(std::move(drow));
  }
  h += table({"claimed strategy", "answers", "parsed", "differs", "valid", "equivalent", "faster"}, rows);
  if (!data.empty())
    h += plot.svg("eval-per-strategy", "Cumulative gate rates per claimed strategy",
                  datablock("p", data) +
                      "set style data histogram\nset style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
                      "set yrange [0:1.05]\nset ylabel 'share of answers'\nset key outside right\n"
                      "set xtics rotate by -45 font 'sans,8'\nset bmargin 8\n"
                      "plot $p using 2:xtic(1) title 'parsed', '' using 3 title 'differs', '' using 4 title 'valid', "
                      "'' using 5 title 'equivalent', '' using 6 title 'faster'",
                  900, 340);
  // speedups of equivalent answers, from the result lines
  std::map<std::string, std::vector<double>> sp;
  for (const auto& r : results) {
    if (field(r, "n").is_number() && r["n"].get<int>() > 1) {
      for (const auto& p : field(r, "programs"))
        if (field(p, "equivalent") == true && field(p, "speedup").is_number() && p["speedup"].get<double>() > 0)
          sp["(multi-N programs)"].push_back(p["speedup"].get<double>());
      continue;
    }
    if (field(r, "equivalent") == true && field(r, "speedup").is_number() && r["speedup"].get<double>() > 0)
      sp[field(r, "strategy").is_string() ? r["strategy"].get<std::string>() : "?"].push_back(r["speedup"].get<double>());
  }
  h += "<h3>Speedup distribution of equivalent answers</h3>\n";
  std::vector<std::vector<std::string>> spd;
  std::vector<double> all;
  auto add = [&](const std::string& n) {
    for (double v : sp[n]) spd.push_back({gp_str(n), fmt::format("{:.6g}", v)}), all.push_back(v);
  };
  for (const auto& n : names) add(n);
  if (sp.count("(multi-N programs)")) add("(multi-N programs)");
  const ojson& dist = field(single, "speedup_of_equivalent");
  std::vector<std::string> dcells{"single-answer, equivalent"};
  for (const char* k : {"n", "min", "p10", "p25", "median", "p75", "p90", "max", "geomean"}) dcells.push_back(num(field(dist, k)));
  h += table({"", "n", "min", "p10", "p25", "median", "p75", "p90", "max", "geomean"}, {dcells});
  if (spd.empty())
    h += "<p class=\"note\">No equivalent answer has a speedup (not measured, or none equivalent).</p>\n";
  else
    h += plot.svg("eval-speedups", "Speedup of equivalent answers per claimed strategy (box plot, log scale; dashed: 1.0)",
                  datablock("e", spd) + log_yrange(all) + kSpeedupTics + factor_xrange(spd) +
                      "set logscale y\nset style boxplot outliers pointtype 7\nset pointsize 0.3\nset boxwidth 0.5\n"
                      "set style fill solid 0.3 border -1\nset xtics rotate by -45 font 'sans,8'\nset bmargin 8\n"
                      "set ylabel 'speedup'\nunset key\n"
                      "plot $e using (1):2:(0.5):1 with boxplot lc rgb '#228833', 1 with lines dt 2 lc rgb '#888888'",
                  900, 340);
  const ojson& m = field(s, "multi");
  if (field(m, "answers").is_number() && m["answers"].get<std::int64_t>() > 0) {
    h += fmt::format("<h3>Multi-N prompts ({} answers)</h3>\n", num(m["answers"]));
    h += table({"parsed", "meets n", "all equivalent", "any faster", "mean distinct programs", "mean distinct strategies",
                "programs returned"},
               {{pct(field(m, "parsed")), pct(field(m, "meets_n")), pct(field(m, "all_equivalent")),
                 pct(field(m, "any_faster")), num(field(m, "mean_distinct_differing_programs")),
                 num(field(m, "mean_distinct_strategies")), num(field(m, "programs_returned"))}});
  }
  return h;
}

}  // namespace steptp::report
