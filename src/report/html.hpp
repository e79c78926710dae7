// Building blocks of `steptp report` (src/report/report.hpp): HTML escaping, sortable tables, number formatting,
// and plots drawn by gnuplot (SVG terminal, run as a child process) that are inlined into the page.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "base/json_text.hpp"

namespace steptp::report {

using core::ojson;

/// `s` with &, <, >, " and ' replaced by entities.
std::string esc(std::string_view s);

/// A number as short text: integers as is, others with `digits` significant digits; "–" for null or non-numbers.
std::string num(const ojson& v, int digits = 3);

/// A share in [0, 1] as "12.5%"; "n/a" for null.
std::string pct(const ojson& v);

/// A table whose header cells sort the rows on click (the page's inline script). Cells are HTML (escape text with
/// esc()); `caption` is escaped.
std::string table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows,
                  const std::string& caption = "");

/// LEIR with line breaks after '[' and ';' and two-space indentation per loop body, for reading (not canonical).
std::string leir_layout(std::string_view leir);

/// Runs gnuplot scripts into inline SVG. One instance per report; each plot gets a unique element id.
class Plotter {
 public:
  /// Finds gnuplot ($STEPTP_GNUPLOT, else `gnuplot` on PATH). Throws std::runtime_error with an install hint when
  /// it is missing.
  Plotter();
  /// Removes the scratch directory of the scripts.
  ~Plotter();
  Plotter(const Plotter&) = delete;
  Plotter& operator=(const Plotter&) = delete;

  /// Draws `body` (gnuplot commands after the terminal and output lines; data as inline datablocks) on an SVG of
  /// width x height pixels and returns `<figure class="plot" data-plot=NAME>` holding the inlined SVG and `title`.
  /// Throws std::runtime_error with gnuplot's message when the script fails.
  std::string svg(const std::string& name, const std::string& title, const std::string& body, int width = 760,
                  int height = 360);

  /// How many plots were drawn so far (the page records it so the browser test can count them).
  int plots() const { return count_; }

 private:
  std::string exe_;
  std::string work_dir_;
  int count_ = 0;
};

/// A gnuplot datablock `$name << EOD ... EOD` from rows of already formatted columns (strings are quoted).
std::string datablock(const std::string& name, const std::vector<std::vector<std::string>>& rows);

/// A gnuplot string literal (double-quoted, with quotes and backslashes escaped, '_' and '^' kept literal for the
/// enhanced-text mode).
std::string gp_str(std::string_view s);

/// "set yrange [lo:hi]" for a log-scale axis over `values` (positive ones), widened to hold [1/pad_one, pad_one]
/// when pad_one > 0 (speedup plots keep 1.0 in view) and by a factor 1.5 on both sides; empty for no values.
std::string log_yrange(const std::vector<double>& values, double pad_one = 2.0);

/// Labelled ticks of a log-scale speedup axis (gnuplot labels only decades, so a narrow range showed one label).
inline constexpr const char* kSpeedupTics =
    "set ytics ('0.001' 0.001, '0.01' 0.01, '0.1' 0.1, '0.25' 0.25, '0.5' 0.5, '1' 1, "
    "'2' 2, '4' 4, '10' 10, '30' 30, '100' 100, '1000' 1000)\n";

/// "set xrange [0.5:k+0.5]" for a box plot whose factor (first column of `rows`) takes k distinct values (gnuplot's
/// x autoscaling drops factors of unsorted box plots).
std::string factor_xrange(const std::vector<std::vector<std::string>>& rows);

/// Wraps the page sections in one self-contained HTML document (inline CSS and script, no network); `plots` is the
/// number of plot figures the body holds.
std::string page(const std::string& title, const std::string& body, int plots);

}  // namespace steptp::report
