// The search section of `steptp report` (summary.json and results.jsonl of DATASET.md §9.4).
#include <filesystem>

#include <fmt/format.h>

#include "report/pages.hpp"

namespace steptp::report {
namespace {

std::string ms(const ojson& ns) {
  return ns.is_number() ? fmt::format("{:.4g} ms", ns.get<double>() / 1e6) : "–";
}


/// The best path of one task as an ordered list of steps.
std::string path_list(const ojson& result) {
  const ojson& path = field(result, "path");
  if (!path.is_array() || path.empty()) return "<span class=\"note\">root (no step improved it)</span>";
  std::string h = "<ol class=\"path\">";
  for (const auto& st : path)
    h += fmt::format("<li><b>{}</b> <code>{}</code> &rarr; {}&times;</li>", esc(field(st, "strategy").is_string() ? st["strategy"].get<std::string>() : "?"),
                     esc(field(st, "candidate").is_string() ? st["candidate"].get<std::string>() : ""),
                     num(field(st, "speedup")));
  return h + "</ol>";
}

}  // namespace

SearchRun load_search(const std::string& dir) {
  SearchRun r;
  r.dir = dir;
  r.summary = read_json((std::filesystem::path(dir) / "summary.json").string());
  r.results = read_jsonl_if_present((std::filesystem::path(dir) / "results.jsonl").string());
  return r;
}

std::string fast_p_plot(const std::vector<const SearchRun*>& runs, const std::string& name, Plotter& plot) {
  std::string data, cmds;
  std::vector<std::vector<std::string>> rows;
  int i = 0;
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    const SearchRun* r = runs[ri];
    const std::string label = r->summary.value("algorithm", "?") + "/" + r->summary.value("policy", "?");
    const ojson& fp = field(r->summary, "fast_p");
    for (const char* base : {"naive", "baseline"}) {
      const ojson& b = field(fp, base);
      if (!b.is_object()) continue;
      std::vector<std::vector<std::string>> pts;
      std::vector<std::string> row{esc(label), base};
      for (const char* p : {"0", "1.0", "1.5", "2.0", "3.0"}) {
        if (!field(b, p).is_number()) continue;
        pts.push_back({p, gp_number(b[p], "NaN")});
        row.push_back(pct(b[p]));
      }
      if (pts.empty()) continue;
      row.push_back(std::string(base) == "baseline" ? num(field(b, "tasks")) : num(field(r->summary, "tasks")));
      rows.push_back(std::move(row));
      const std::string block = fmt::format("fp{}", i);
      data += datablock(block, pts);
      cmds += fmt::format("{}${} using 1:2 with linespoints lw 2 pt 7 lc {} dt {} title {}", cmds.empty() ? "" : ", ",
                          block, 1 + int(ri), std::string(base) == "naive" ? 1 : 2,
                          gp_str(label + (std::string(base) == "naive" ? " vs naive" : " vs library baseline")));
      ++i;
    }
  }
  if (cmds.empty()) return "<p class=\"note\">No fast_p in the summary.</p>\n";
  std::string h = plot.svg(name, "fast_p: share of all tasks with a correct result faster than p (solid: over the naive "
                                 "lowering; dashed: over the library baseline, on tasks that have one)",
                           data + "set xrange [-0.1:3.1]\nset yrange [0:1.05]\nset xlabel 'p'\nset ylabel 'fast_p'\n"
                                  "set xtics ('0' 0, '1' 1, '1.5' 1.5, '2' 2, '3' 3)\nset key outside right\nset grid\n"
                                  "plot " + cmds,
                           760, 300);
  return h + table({"algorithm/policy", "over", "fast_0", "fast_1.0", "fast_1.5", "fast_2.0", "fast_3.0", "tasks"}, rows);
}

std::string search_section(const SearchRun& run, Plotter& plot) {
  const ojson& s = run.summary;
  std::string h = fmt::format(
      "<p>Algorithm <b>{}</b>, policy <b>{}</b>: {} tasks, {} errors, {} improved; geometric mean speedup {} "
      "(median {}), over the library baseline {}; mean budget use: proposals {}, measurements {}.</p>\n",
      esc(s.value("algorithm", "?")), esc(s.value("policy", "?")), num(field(s, "tasks")), num(field(s, "errors")),
      num(field(s, "improved")), num(field(s, "geomean_speedup")), num(field(s, "median_speedup")),
      num(field(s, "geomean_speedup_vs_baseline")), pct(field(field(s, "mean_budget_use"), "proposals")),
      pct(field(field(s, "mean_budget_use"), "measurements")));
  std::vector<std::vector<std::string>> rows, data, paths;
  std::vector<double> all;
  for (const auto& r : run.results) {
    const ojson& res = field(r, "result");
    const ojson& budget = field(r, "budget");
    const std::string wl = r.value("workload", "?");
    rows.push_back({esc(wl), esc(r.value("status", "?")), ms(field(field(field(r, "root"), "latency"), "median_ns")),
                    field(field(r, "baseline"), "routine").is_string()
                        ? esc(r["baseline"]["routine"].get<std::string>()) + " " + ms(r["baseline"]["median_ns"])
                        : "–",
                    ms(field(res, "latency_ns")), num(field(res, "speedup")), num(field(res, "speedup_vs_baseline")),
                    std::to_string(field(res, "path").is_array() ? res["path"].size() : 0),
                    fmt::format("{}/{}", num(field(field(budget, "proposals"), "used")), num(field(field(budget, "proposals"), "limit"))),
                    fmt::format("{}/{}", num(field(field(budget, "measurements"), "used")), num(field(field(budget, "measurements"), "limit"))),
                    esc(field(budget, "stop_reason").is_string() ? budget["stop_reason"].get<std::string>()
                                                                 : (field(r, "error").is_string() ? r["error"].get<std::string>() : "–"))});
    for (const char* k : {"speedup", "speedup_vs_baseline"})
      if (field(res, k).is_number()) all.push_back(res[k].get<double>());
    if (r.value("status", "") == "ok")
      data.push_back({gp_str(wl), res.is_object() ? gp_number(field(res, "speedup"), "NaN") : "1",
                      gp_number(field(res, "speedup_vs_baseline"), "NaN")});
    paths.push_back({esc(wl), num(field(res, "speedup")), path_list(res)});
  }
  h += "<h3>Per-task speedup over the naive lowering and over the library baseline</h3>\n";
  if (!data.empty())
    h += plot.svg("search-speedups", "Best speedup per task (log scale; dashed: 1.0; no bar: no library baseline)",
                  datablock("t", data) + log_yrange(all) + kSpeedupTics +
                      "set datafile missing 'NaN'\nset style data histogram\nset style histogram cluster gap 1\n"
                      "set style fill solid 0.8 border -1\nset logscale y\nset ylabel 'speedup'\n"
                      "set xtics rotate by -30 font 'sans,8'\nset bmargin 7\nset key top right\n"
                      "plot $t using 2:xtic(1) title 'over naive' lc rgb '#4477aa', '' using 3 title 'over library "
                      "baseline' lc rgb '#ee6677', 1 with lines dt 2 lc rgb '#888888' notitle",
                  820, 340);
  h += table({"workload", "status", "naive latency", "library baseline", "best latency", "speedup vs naive",
              "speedup vs baseline", "steps", "proposals used", "measurements used", "stop reason / error"},
             rows);
  h += "<h3>fast_p</h3>\n" + fast_p_plot({&run}, "search-fast_p-" + std::to_string(plot.plots()), plot);
  h += "<h3>Best path of each task</h3>\n" + table({"workload", "speedup", "steps (strategy, candidate, speedup after the step)"}, paths);
  const ojson& oc = field(s, "outcomes");
  if (oc.is_object() && !oc.empty()) {
    std::vector<std::vector<std::string>> o;
    for (auto it = oc.begin(); it != oc.end(); ++it) o.push_back({esc(it.key()), num(it.value())});
    h += table({"proposal outcome", "count"}, o, "Proposal outcomes (all tasks)");
  }
  return h;
}

}  // namespace steptp::report
