// The dataset section of `steptp report` (stats.json of DATASET.md §7.5 plus archive/all.jsonl).
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "report/pages.hpp"
#include "base/file_io.hpp"

namespace steptp::report {
namespace {

const ojson& at(const ojson& j, std::initializer_list<const char*> path) {
  static const ojson null_value;
  const ojson* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return null_value;
    p = &(*p)[k];
  }
  return *p;
}

std::int64_t count_of(const ojson& obj, const std::string& key) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) return 0;
  return obj[key].get<std::int64_t>();
}

std::string count_cell(std::int64_t n) { return n == 0 ? "<span class=\"zero\">0</span>" : std::to_string(n); }

const char* kFamilies[] = {"graph", "loop", "memory", "algebraic", "special"};

/// What the archive contributes: raw speedups and token counts per record, and one sample record per strategy.
struct ArchiveData {
  std::map<std::string, std::vector<double>> speedups;  // strategy -> measured speedups
  std::vector<std::pair<std::string, double>> tokens;   // (kind, tokens)
  std::map<std::string, ojson> sample;                  // strategy -> first record
  std::int64_t records = 0;
};

ArchiveData read_archive(const std::string& path) {
  ArchiveData a;
  std::ifstream f(path);
  std::size_t line_no = 0;
  for (std::string l; ir::getline_bounded(f, l, path);) {
    ++line_no;
    if (l.empty()) continue;
    ojson r = ojson::parse(l, nullptr, false);
    if (r.is_discarded() || !r.is_object())
      throw std::invalid_argument(fmt::format("{}:{}: not a JSON record", path, line_no));
    ++a.records;
    const std::string s = at(r, {"strategy", "name"}).is_string() ? at(r, {"strategy", "name"}).get<std::string>() : "?";
    const ojson& sp = at(r, {"measurement", "speedup"});
    if (sp.is_number() && sp.get<double>() > 0) a.speedups[s].push_back(sp.get<double>());
    const ojson& t = r.contains("tokens") ? r["tokens"] : ojson();
    for (auto [k, label] : {std::pair{"leir_before", "LEIR before"}, std::pair{"tir_before", "TVMScript before"},
                            std::pair{"leir_after", "LEIR after"}, std::pair{"tir_after", "TVMScript after"}})
      if (t.is_object() && t.contains(k) && t[k].is_number() && t[k].get<double>() > 0)
        a.tokens.emplace_back(label, t[k].get<double>());
    if (!a.sample.count(s)) {
      r.erase("facts");  // not shown; keeps the kept samples small
      r.erase("reasoning");
      a.sample.emplace(s, std::move(r));
    }
  }
  return a;
}

std::string funnel_part(const ojson& stats, Plotter& plot) {
  std::string h = "<h3>Acceptance funnel S1 &rarr; S11</h3>\n";
  std::vector<std::vector<std::string>> rows, data;
  for (const auto& st : at(stats, {"funnel"})) {
    rows.push_back({esc(st.value("stage", "")), num(st["count"]), pct(st["rate_vs_previous"]),
                    pct(st["rate_vs_candidates"])});
    data.push_back({gp_str(st.value("stage", "")), num(st["count"], 12)});
  }
  h += table({"stage", "count", "rate vs previous", "rate vs candidates"}, rows);
  if (!data.empty())
    h += plot.svg("dataset-funnel", "Records at each stage (log scale)",
                  datablock("f", data) +
                      "set style fill solid 0.8 border -1\nset boxwidth 0.7\nset logscale y\nset yrange [0.8:*]\n"
                      "set xtics rotate by -30\nset ylabel 'count'\nset bmargin 6\n"
                      "plot $f using 0:2:xtic(1) with boxes lc rgb '#4477aa' notitle, "
                      "'' using 0:2:2 with labels offset 0,0.7 notitle",
                  760, 340);
  std::vector<std::vector<std::string>> rej;
  const ojson& rj = at(stats, {"rejections"});
  if (rj.is_object())
    for (auto it = rj.begin(); it != rj.end(); ++it)
      for (auto jt = it.value().begin(); jt != it.value().end(); ++jt)
        rej.push_back({esc(it.key()), esc(jt.key()), num(jt.value())});
  if (!rej.empty()) h += table({"stage", "rejection reason", "count"}, rej, "Rejections per stage");
  return h;
}

std::string strategy_part(const ojson& stats, const ArchiveData& a, Plotter& plot) {
  const ojson& per = at(stats, {"counts", "records_per_strategy"});
  const ojson& pc = at(stats, {"pipeline_counters"});
  const ojson& splits = at(stats, {"counts", "splits"});
  const ojson& sps = at(stats, {"speedup", "per_strategy"});
  std::vector<std::vector<std::string>> rows, data;
  const auto& cat = catalogue();
  for (std::size_t idx = 0; idx < cat.size(); ++idx) {
    const std::string name(cat[idx].name), fam(cat[idx].family);
    const std::int64_t n = count_of(per, name);
    std::vector<std::string> row{std::to_string(idx), esc(name), fam,
                                 count_cell(count_of(pc, "cand." + name)), count_cell(n)};
    for (const char* sp : {"train", "val", "test"})
      row.push_back(count_cell(count_of(at(splits, {sp, "single_answer_per_strategy"}), name)));
    const ojson& d = sps.is_object() && sps.contains(name) ? sps[name] : ojson();
    row.push_back(num(at(d, {"median"})));
    row.push_back(num(at(d, {"geomean"})));
    rows.push_back(std::move(row));
    int fi = 1;
    for (int i = 0; i < 5; ++i)
      if (fam == kFamilies[i]) fi = i + 1;
    data.push_back({gp_str(name), std::to_string(n), std::to_string(fi)});
  }
  std::string h = fmt::format("<h3>Records per strategy (all {} strategies, canonical order)</h3>\n", rows.size());
  h += plot.svg("dataset-per-strategy", "Records (archive, S9) per strategy, coloured by family",
                datablock("s", data) +
                    "set style fill solid 0.85 border -1\nset boxwidth 0.75\nset xtics rotate by -60 font 'sans,8'\n"
                    "set yrange [0:*]\nset ylabel 'records'\nset bmargin 9\nset key top right\nset xrange [-1:*]\n"
                    "plot $s using 0:2:3:xtic(1) with boxes lc variable notitle, "
                    "for [i=1:5] NaN with boxes lc i title word('graph loop memory algebraic special', i)",
                1000, 380);
  h += table({"#", "strategy", "family", "candidates (S4)", "records (S9)", "train samples", "val samples",
              "test samples", "median speedup", "geomean speedup"},
             rows);
  std::vector<std::vector<std::string>> fam_rows, fam_data;
  const ojson& fams = at(stats, {"counts", "records_per_strategy_family"});
  for (const char* f : kFamilies) {
    fam_rows.push_back({f, count_cell(count_of(fams, f))});
    fam_data.push_back({gp_str(f), std::to_string(count_of(fams, f))});
  }
  h += "<h3>Records per strategy family</h3>\n" + table({"family", "records"}, fam_rows);
  h += plot.svg("dataset-per-family", "Records per strategy family",
                datablock("f", fam_data) +
                    "set style fill solid 0.85 border -1\nset boxwidth 0.6\nset yrange [0:*]\nset ylabel 'records'\n"
                    "plot $f using 0:2:($0+1):xtic(1) with boxes lc variable notitle, '' using 0:2:2 with labels "
                    "offset 0,0.7 notitle",
                560, 260);
  // speedups per strategy, from the archive's records (every measured record, noisy ones included)
  std::vector<std::vector<std::string>> sp_data;
  std::vector<double> all;
  for (const auto& s : catalogue()) {
    auto it = a.speedups.find(s.name);
    if (it == a.speedups.end()) continue;
    for (double v : it->second) sp_data.push_back({gp_str(s.name), fmt::format("{:.6g}", v)}), all.push_back(v);
  }
  h += "<h3>Speedup distribution per strategy</h3>\n";
  if (sp_data.empty()) {
    h += "<p class=\"note\">No measured records (generated with --no-measure).</p>\n";
  } else {
    h += plot.svg("dataset-speedups", "Speedup of each measured record per strategy (box plot, log scale; dashed: 1.0)",
                  datablock("sp", sp_data) + log_yrange(all) + kSpeedupTics + factor_xrange(sp_data) +
                      "set logscale y\nset style boxplot outliers pointtype 7\nset pointsize 0.3\nset boxwidth 0.5\n"
                      "set style fill solid 0.3 border -1\nset xtics rotate by -60 font 'sans,8'\nset bmargin 9\n"
                      "set ylabel 'speedup (before / after latency)'\nunset key\n"
                      "plot $sp using (1):2:(0.5):1 with boxplot lc rgb '#4477aa', 1 with lines dt 2 lc rgb '#888888'",
                  1000, 420);
  }
  return h;
}

std::vector<std::string> dist_cells(const std::string& label, const ojson& d) {
  std::vector<std::string> r{esc(label)};
  for (const char* k : {"n", "min", "p10", "p25", "median", "p75", "p90", "max", "geomean"}) r.push_back(num(at(d, {k})));
  return r;
}

const std::vector<std::string> kDistHeader{"", "n", "min", "p10", "p25", "median", "p75", "p90", "max", "geomean"};

std::string speedup_tokens_part(const ojson& stats, const ArchiveData& a, Plotter& plot) {
  std::string h = "<h3>Speedups overall and noisy share</h3>\n";
  const ojson& sp = at(stats, {"speedup"});
  h += fmt::format("<p>Measured records: {}; noisy share: <b>{}</b> (noisy measurements are kept in the archive "
                   "but never count as faster).</p>\n",
                   num(at(sp, {"measured_records"})), pct(at(sp, {"noisy_share"})));
  h += table(kDistHeader, {dist_cells("overall speedup", at(sp, {"overall"}))});
  std::vector<std::vector<std::string>> b;
  const ojson& buckets = at(sp, {"buckets"});
  if (buckets.is_object())
    for (auto it = buckets.begin(); it != buckets.end(); ++it) b.push_back({gp_str(it.key()), num(it.value(), 12)});
  if (!b.empty() && at(sp, {"measured_records"}).is_number() && at(sp, {"measured_records"}).get<double>() > 0)
    h += plot.svg("dataset-speedup-buckets", "Records per speedup bucket",
                  datablock("b", b) +
                      "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset yrange [0:*]\nset ylabel 'records'\n"
                      "plot $b using 0:2:xtic(1) with boxes lc rgb '#228833' notitle, '' using 0:2:2 with labels "
                      "offset 0,0.7 notitle",
                  560, 260);
  h += "<h3>Token lengths (LEIR vs TVMScript)</h3>\n";
  const ojson& tk = at(stats, {"tokens"});
  std::vector<std::vector<std::string>> rows;
  for (const char* k : {"leir", "tvmscript", "prompt", "completion"}) rows.push_back(dist_cells(k, at(tk, {k})));
  h += fmt::format("<p>Token rule: <code>{}</code>; mean TVMScript/LEIR ratio: <b>{}</b>.</p>\n",
                   esc(at(tk, {"rule"}).is_string() ? at(tk, {"rule"}).get<std::string>() : "?"),
                   num(at(tk, {"mean_tvmscript_to_leir_ratio"})));
  h += table(kDistHeader, rows);
  std::vector<std::vector<std::string>> td;
  std::vector<double> tv;
  for (const auto& [k, v] : a.tokens) td.push_back({gp_str(k), fmt::format("{:.0f}", v)}), tv.push_back(v);
  if (!td.empty())
    h += plot.svg("dataset-tokens", "Tokens per program, LEIR vs TVMScript, before and after (box plot, log scale)",
                  datablock("t", td) + log_yrange(tv, 0) + factor_xrange(td) +
                      "set logscale y\nset style boxplot outliers pointtype 7\nset pointsize 0.3\nset boxwidth 0.5\n"
                      "set style fill solid 0.3 border -1\nset ylabel 'tokens'\nunset key\n"
                      "plot $t using (1):2:(0.5):1 with boxplot lc rgb '#aa3377'",
                  760, 320);
  return h;
}

std::string splits_audit_part(const ojson& stats, Plotter& plot) {
  std::string h = "<h3>Splits</h3>\n";
  std::vector<std::vector<std::string>> rows, data;
  for (const char* s : {"train", "val", "test"}) {
    const ojson& d = at(stats, {"counts", "splits", s});
    rows.push_back({s, num(at(d, {"records"})), num(at(d, {"samples"}))});
    data.push_back({s, num(at(d, {"records"}), 12) == "–" ? "0" : num(at(d, {"records"}), 12),
                    num(at(d, {"samples"}), 12) == "–" ? "0" : num(at(d, {"samples"}), 12)});
  }
  h += table({"split", "records", "chat samples"}, rows);
  h += plot.svg("dataset-splits", "Records and chat samples per split",
                datablock("s", data) +
                    "set style data histogram\nset style histogram cluster gap 1\nset style fill solid 0.8 border -1\n"
                    "set yrange [0:*]\nset key top right\n"
                    "plot $s using 2:xtic(1) title 'records' lc rgb '#4477aa', '' using 3 title 'chat samples' "
                    "lc rgb '#ee6677'",
                560, 260);
  const ojson& mn = at(stats, {"counts", "multi_n_samples_by_n"});
  if (mn.is_object() && !mn.empty()) {
    std::vector<std::vector<std::string>> m;
    for (auto it = mn.begin(); it != mn.end(); ++it) m.push_back({esc(it.key()), num(it.value())});
    h += table({"N", "multi-N samples"}, m, "Multi-N samples by N");
  }
  h += "<h3>Shortcut-baseline audit</h3>\n";
  const ojson& au = at(stats, {"audit"});
  h += fmt::format("<p>Majority strategy of train: <code>{}</code>. Split leakage (expected 0): val {}, test {}.</p>\n",
                   esc(at(au, {"majority_strategy"}).is_string() ? at(au, {"majority_strategy"}).get<std::string>() : "–"),
                   num(at(au, {"split_leak", "val"})), num(at(au, {"split_leak", "test"})));
  std::vector<std::vector<std::string>> ar;
  for (const char* s : {"val", "test"}) {
    const ojson& b = at(au, {"baselines", s});
    ar.push_back({s, num(at(b, {"prompts"})), pct(at(b, {"majority_baseline_accuracy"})),
                  pct(at(b, {"signature_baseline_accuracy"})), num(at(b, {"mean_strategies_per_prompt"})),
                  num(at(b, {"groups_with_2plus_strategies"}))});
  }
  h += table({"split", "prompts", "majority baseline accuracy", "signature baseline accuracy",
              "mean strategies per prompt", "groups with &ge; 2 strategies"},
             ar);
  const ojson& q = at(au, {"quota_shortfalls"});
  if (q.is_object() && !q.empty()) {
    std::vector<std::vector<std::string>> qr;
    for (auto it = q.begin(); it != q.end(); ++it) {
      std::int64_t total = 0;
      for (const auto& v : it.value()) total += v.is_number() ? v.get<std::int64_t>() : 0;
      qr.push_back({esc(it.key()), std::to_string(it.value().size()), std::to_string(total)});
    }
    h += table({"split", "strategies short of the quota", "samples missing"}, qr, "Rare-strategy quota shortfalls");
  }
  return h;
}

std::string samples_part(const ArchiveData& a) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& s : catalogue()) {
    auto it = a.sample.find(s.name);
    if (it == a.sample.end()) continue;
    const ojson& r = it->second;
    const ojson& cand = at(r, {"params", "candidate"});
    rows.push_back({esc(r.value("workload", "")), esc(std::string(s.name)),
                    "<code>" + esc(cand.is_string() ? cand.get<std::string>() : "") + "</code>", num(at(r, {"measurement", "speedup"})),
                    "<pre>" + esc(leir_layout(at(r, {"before", "leir"}).is_string() ? at(r, {"before", "leir"}).get<std::string>() : "")) + "</pre>",
                    "<pre>" + esc(leir_layout(at(r, {"after", "leir"}).is_string() ? at(r, {"after", "leir"}).get<std::string>() : "")) + "</pre>"});
  }
  std::string h = fmt::format("<h3>Sample records ({} of {}: the first archived record of each strategy)</h3>\n",
                              rows.size(), a.records);
  if (rows.empty()) return h + "<p class=\"note\">The archive holds no records.</p>\n";
  return h + table({"workload", "strategy", "candidate", "speedup", "before (LEIR)", "after (LEIR)"}, rows);
}

}  // namespace

std::string dataset_section(const std::string& dir, Plotter& plot) {
  const std::filesystem::path d(dir);
  const ojson manifest = read_json((d / "manifest.json").string());
  const ojson stats = read_json((d / "stats.json").string());
  const ArchiveData a = read_archive((d / "archive" / "all.jsonl").string());
  std::string h = fmt::format("<p class=\"note\">gen_hash <code>{}</code>, filter_hash <code>{}</code>; {} archived "
                              "records.</p>\n",
                              esc(manifest.value("gen_hash", "?")), esc(manifest.value("filter_hash", "?")), a.records);
  h += funnel_part(stats, plot);
  h += strategy_part(stats, a, plot);
  h += speedup_tokens_part(stats, a, plot);
  h += splits_audit_part(stats, plot);
  h += samples_part(a);
  return h;
}

}  // namespace steptp::report
