// The sections of `steptp report`, one per directory kind (internal to src/report/).
#pragma once
#include <string>
#include <vector>

#include "report/html.hpp"

namespace steptp::report {

/// One strategy of the catalogue.
struct CatalogueEntry {
  const char* name;
  const char* family;
};

/// The 43 strategies of STRATEGIES.md in canonical index order (the registry holds only the implemented ones; the
/// report lists all, with zeros).
const std::vector<CatalogueEntry>& catalogue();

/// The parsed JSON lines of a file (dataset::read_jsonl); an absent file gives none. Throws std::runtime_error
/// naming the file and line when a line is not JSON.
std::vector<ojson> read_jsonl_if_present(const std::string& path);

/// A JSON file, parsed. Throws std::invalid_argument naming the file when it is missing or not JSON.
ojson read_json(const std::string& path);

/// j[k] when j is an object holding k, else a null value; never throws.
const ojson& field(const ojson& j, const char* k);

/// A number as a gnuplot data cell ("{:.6g}"), or `missing` when v is not a number.
std::string gp_number(const ojson& v, const char* missing);

/// The dataset section: funnel, records per strategy (all 43) and family, speedups per strategy, noisy share,
/// token lengths, splits, the shortcut-baseline audit and sample records with before/after LEIR.
std::string dataset_section(const std::string& dir, Plotter& plot);

/// The eval section: gate funnel overall and per claimed strategy, speedups of equivalent answers, multi-N.
std::string eval_section(const std::string& dir, Plotter& plot);

/// One search directory's summary and result lines.
struct SearchRun {
  std::string dir;
  ojson summary;
  std::vector<ojson> results;
};

/// Reads a search directory (summary.json, results.jsonl).
SearchRun load_search(const std::string& dir);

/// The search section: per-task speedups over naive and baseline, fast_p curves, best paths.
std::string search_section(const SearchRun& run, Plotter& plot);

/// One plot of fast_p(p) per (algorithm, policy) of `runs`, over the naive lowering and over the library baseline.
std::string fast_p_plot(const std::vector<const SearchRun*>& runs, const std::string& name, Plotter& plot);

}  // namespace steptp::report
