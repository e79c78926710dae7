// `steptp report DIR... -o report.html`: one self-contained HTML page (inline CSS, inline SVG plots drawn by
// gnuplot, a few lines of inline script that sort tables; no network) for a dataset directory (DATASET.md §7.5),
// an eval directory (§8) or a search directory (§9.4), or several of them side by side.
#pragma once
#include <string>
#include <vector>

namespace steptp::report {

enum class Kind { Dataset, Eval, Search };

/// "dataset", "eval" or "search".
const char* kind_name(Kind k);

/// The kind of a directory, from its files: manifest.json with schema steptp.manifest/1 (dataset), summary.json
/// with schema steptp.eval/1 (eval), or summary.json with "algorithm" and "fast_p" (search). Throws
/// std::invalid_argument naming the path when it is none of them.
Kind detect_kind(const std::string& dir);

/// The whole HTML page for `dirs` (one column per directory, in the order given; with two or more search
/// directories also a combined fast_p comparison). Throws std::invalid_argument for a directory of no known kind
/// or with unreadable files, std::runtime_error when gnuplot is missing or fails.
std::string render_report(const std::vector<std::string>& dirs);

}  // namespace steptp::report
