#include "report/report.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "step/dataset_dir.hpp"
#include "dataset/export.hpp"
#include "report/pages.hpp"

namespace fs = std::filesystem;

namespace steptp::report {

std::vector<ojson> read_jsonl_if_present(const std::string& path) {
  if (!std::filesystem::exists(path)) return {};
  return dataset::read_jsonl(path);
}

const ojson& field(const ojson& j, const char* k) {
  static const ojson null_value;
  return j.is_object() && j.contains(k) ? j[k] : null_value;
}

std::string gp_number(const ojson& v, const char* missing) {
  return v.is_number() ? fmt::format("{:.6g}", v.get<double>()) : missing;
}

ojson read_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::invalid_argument(path + ": cannot read");
  try {
    return ojson::parse(f);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{}: not JSON ({})", path, e.what()));
  }
}

const std::vector<CatalogueEntry>& catalogue() {
  static const std::vector<CatalogueEntry> c{
      {"operator_fusion", "graph"},
      {"operator_fission", "graph"},
      {"compute_inline", "graph"},
      {"expression_splitting", "graph"},
      {"tensor_concat_to_fuse_operators", "graph"},
      {"tensor_split_to_decouple_operators", "graph"},
      {"common_subexpression_elimination", "graph"},
      {"dead_code_elimination", "graph"},
      {"expression_reorder", "graph"},
      {"loop_reorder", "loop"},
      {"loop_tiling", "loop"},
      {"loop_split", "loop"},
      {"loop_fusion", "loop"},
      {"loop_unrolling", "loop"},
      {"loop_parallelization", "loop"},
      {"loop_vectorization", "loop"},
      {"loop_binding", "loop"},
      {"reduction_factorization", "loop"},
      {"cache_read_write", "memory"},
      {"layout_transformation", "memory"},
      {"set_storage_scope", "memory"},
      {"set_storage_layout", "memory"},
      {"precompute_indices", "memory"},
      {"factorization", "algebraic"},
      {"expand_factorization", "algebraic"},
      {"cancellation", "algebraic"},
      {"expand_cancellation", "algebraic"},
      {"apart", "algebraic"},
      {"together", "algebraic"},
      {"powsimp", "algebraic"},
      {"expand_powsimp", "algebraic"},
      {"expand_log", "algebraic"},
      {"logsimp", "algebraic"},
      {"collect", "algebraic"},
      {"expand_collect", "algebraic"},
      {"partially_equivalent_then_correct", "special"},
      {"normal_loop_max_to_prefix_max", "special"},
      {"exponential_split", "algebraic"},
      {"multiplicative_split", "algebraic"},
      {"additive_split", "algebraic"},
      {"normal_loop_summation_on_exp_to_prefix_summation_on_exp", "special"},
      {"online_softmax", "special"},
      {"flashattention_wo_tiling", "special"},
  };
  return c;
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Dataset: return "dataset";
    case Kind::Eval: return "eval";
    case Kind::Search: return "search";
  }
  return "?";
}

Kind detect_kind(const std::string& dir) {
  const fs::path d(dir);
  if (!fs::exists(d)) throw dataset::DatasetDirError(Code::D001, dir, "no such directory");
  if (!fs::is_directory(d))
    throw dataset::DatasetDirError(Code::D001, dir, "not a directory (give a dataset, eval or search directory)");
  auto schema_of = [](const fs::path& p, ojson* out) {
    if (!fs::is_regular_file(p)) return std::string();
    std::ifstream f(p);
    ojson j = ojson::parse(f, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return std::string();
    if (out) *out = j;
    return j.value("schema", std::string("-"));
  };
  if (schema_of(d / "manifest.json", nullptr) == "steptp.manifest/1" && fs::is_regular_file(d / "stats.json"))
    return Kind::Dataset;
  ojson summary;
  const std::string s = schema_of(d / "summary.json", &summary);
  if (s == "steptp.eval/1") return Kind::Eval;
  if (!s.empty() && summary.contains("algorithm") && summary.contains("fast_p")) return Kind::Search;
  throw dataset::DatasetDirError(Code::D005, dir,
                                 "not a steptp dataset, eval or search directory (expected manifest.json + "
                                 "stats.json, or summary.json of steptp eval or steptp search)");
}

std::string render_report(const std::vector<std::string>& dirs) {
  if (dirs.empty()) throw std::invalid_argument("no directory given");
  std::vector<Kind> kinds;
  for (const auto& d : dirs) kinds.push_back(detect_kind(d));  // every path is checked before gnuplot runs
  Plotter plot;
  std::vector<std::unique_ptr<SearchRun>> searches;
  std::string cols;
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    cols += fmt::format("<section class=\"{}\"><h2><span class=\"kind\">{}</span>{}</h2>\n", kind_name(kinds[i]),
                        kind_name(kinds[i]), esc(dirs[i]));
    switch (kinds[i]) {
      case Kind::Dataset: cols += dataset_section(dirs[i], plot); break;
      case Kind::Eval: cols += eval_section(dirs[i], plot); break;
      case Kind::Search:
        searches.push_back(std::make_unique<SearchRun>(load_search(dirs[i])));
        cols += search_section(*searches.back(), plot);
        break;
    }
    cols += "</section>\n";
  }
  std::string body;
  if (searches.size() >= 2) {
    std::vector<const SearchRun*> runs;
    for (const auto& s : searches) runs.push_back(s.get());
    body += "<h2>Search: fast_p of every (algorithm, policy)</h2>\n" + fast_p_plot(runs, "fast_p-all", plot);
  }
  body += "<div class=\"cols\">\n" + cols + "</div>\n";
  std::string title = "steptp report: ";
  for (std::size_t i = 0; i < dirs.size(); ++i)
  {
    fs::path p = fs::path(dirs[i]).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();  // "out/default/"
    title += (i ? ", " : "") + std::string(kind_name(kinds[i])) + " " + p.filename().string();
  }
  return page(title, body, plot.plots());
}

}  // namespace steptp::report
