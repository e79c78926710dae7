// Equivalence checking (LEIR.md §11): the verdict of check_equivalence and where its errors were observed. The
// check runs as a list of phases (equiv/equivalence.cpp); its options are equiv/options.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "equiv/inputs.hpp"
#include "equiv/options.hpp"
#include "ir/task.hpp"

namespace steptp::equiv {

/// The value multiset of distribution K for comparing two programs: every literal magnitude of either
/// (literal_magnitudes), followed, when the two sets differ, by as many entries again cycling through the
/// magnitudes found in only one of them — so half of K's literal draws land on the constants where the programs
/// differ (a changed threshold, divisor or clamp is met from both sides).
std::vector<double> comparison_literals(const ir::Program& original, const ir::Program& candidate);

/// Where an error was observed.
struct ErrLocation {
  std::string output;
  std::int64_t index = -1;     // flat row-major index
  std::uint64_t seed = 0;
  Distribution dist = Distribution::Normal;
  /// Boundary draws (Options::Boundary): the draw at `t` in [0, 1] on the segment from the
  /// draw (seed, dist) to the draw (seed, to), interpolate_inputs with salt `seed`; t < 0 for every other draw.
  Distribution to = Distribution::Normal;
  double t = -1;
  /// Guided draws (Options::Guided): the index of the mutated draw of the search started with
  /// seed `seed`; -1 for every other draw.
  std::int64_t guided = -1;
  bool typed = false;          // the runs were typed (RunOptions::typed: §8.2 precision)
  /// > 0: the draw with its float inputs clamped to +-clamped (2^9), where an integer or bool difference found on a
  /// draw near exp's f64 overflow point is judged (the range rule, equiv/judge.cpp); 0 for every other draw.
  double clamped = 0;
  double a = 0, b = 0;         // candidate, original
};

/// "seed 4, S" for a draw, "seed 4, N->S at t=0.2031326" for a boundary draw (ErrLocation::t >= 0), "guided draw 37
/// of seed 67" for a guided draw (ErrLocation::guided >= 0), with ", float inputs clamped to 512" for a clamped
/// draw (ErrLocation::clamped > 0). The verdict's message adds ", typed" for a typed run of an untyped check (the
/// cheap checks' and boundary draws' typed runs).
std::string draw_label(const ErrLocation& at);

struct Result {
  bool equivalent = false;
  std::string code;            // "" when equivalent, else E501-E505
  std::string message;
  double max_abs_err = 0, max_rel_err = 0;
  ErrLocation max_abs_at, max_rel_at, first_mismatch;
  bool has_mismatch = false;
  std::uint32_t extra_seeds = 0;  // seeds drawn beyond Options::seeds (adaptive draws)
  std::uint32_t boundary_pairs = 0;  // pairs of boundary draws taken (Options::Boundary)
  std::uint32_t guided_inputs = 0;   // guided draws run (Options::Guided)
  std::uint32_t guided_kept = 0;     // of them, kept in the corpus (new coverage)
  /// JSON object with all of the above (for records and the CLI).
  std::string to_json() const;
};

/// Checks `candidate` against `original`. Never throws for program defects (they become E502/E503 results);
/// throws std::invalid_argument when `opt.fixed` does not fit the original's known buffers (check_fixed_inputs).
/// In a typed run (`opt.typed`, or the typed runs of the further draws), a float element outside the per-dtype
/// tolerance is judged again from f64 runs of both programs on the same draw (run only for draws with such
/// elements): within the original's rounding allowance of §11 step 4b plus the candidate's rounding level
/// (rounding_level: a class-R rewrite rounds at other points, STRATEGIES.md §6), or, where a typed value is
/// infinite or NaN and its own program's f64 value is finite (an overflow of the declared types), on the two f64
/// values. On a draw with a float input above 2^9 in magnitude, an element infinite or NaN in one program only is
/// not judged (§6 range rule; counted in the message), nor is a degenerate float output made only of infinities
/// and NaNs there. A typed run's degenerate output (§11 step 5) counts only
/// when the f64 runs show it too, and an original output within 2^-10 of the tolerance of zero counts as zero.
/// Integer and bool elements are compared exactly, but one that differs only in a typed run while both programs'
/// f64 runs agree on it (a comparison flipped by the declared types' rounding: an f32 store that underflows to 0)
/// is not judged, and one that differs on a draw with a float input above 2^9 (an f64 exp that underflows) is
/// judged again on that draw with the float inputs clamped to +-2^9 (ErrLocation::clamped); both are counted in the
/// message. Sources: bench/RESULTS.md, "Checker specificity" and "Comparisons flipped by underflow".
Result check_equivalence(const ir::Task& original, const ir::Task& candidate, const Options& opt = {});

/// Per-dtype tolerances (rtol, atol) of LEIR.md §11.
std::pair<double, double> tolerance(ir::DType t);

}  // namespace steptp::equiv
