// Internal to the equivalence check: the state of one run (the programs, the options, the results so far, the
// verdict once decided), shared by the phases that equiv/equivalence.cpp runs in order, and the functions the phases
// share: judging one draw (equiv/judge.cpp) and the guided draws' gross-difference and tie checks
// (equiv/tie_check.cpp).
#pragma once
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "equiv/equivalence.hpp"
#include "base/error_codes.hpp"
#include "equiv/guided.hpp"
#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "ir/task.hpp"

namespace steptp::equiv::detail {

struct Context {
  Context(const ir::Task& original, const ir::Task& candidate, const Options& opt);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The programs and the options.
  const ir::Task& original;
  const ir::Task& candidate;
  const Options& opt;
  std::unique_ptr<Interpreter> A, B;  // original, candidate (phase_signature)
  interp::RunOptions ro;              // of the draw being run: `typed` changes per phase and draw
  std::vector<double> literals;       // K's value set: comparison_literals of both programs
  std::uint64_t done_before = 0;      // statement executions of the finished runs (progress, budgets)
  std::uint64_t draws = 0;            // judged draws so far (for the cost of a further draw)

  // The further draws (adaptive, cheap, boundary, guided).
  std::uint64_t next = 0;              // the first seed after `opt.seeds`
  std::vector<Distribution> further;   // opt.dists, and S unless opt.skewed_further_draws is off
  std::string with_s;                  // " with S" when S was added (for the message)

  // The results so far.
  Result r;
  std::string degenerate;  // first degenerate finding (E505)
  std::size_t mismatches = 0;
  std::string first_name;  // the first mismatching element, "D[1,2]"
  bool have_abs = false, have_rel = false;
  /// Distinct values of each output element of the original over the draws, counted up to 3 (phase_adaptive).
  std::vector<std::vector<double>> first_value, second_value;
  std::vector<std::vector<char>> varied;
  std::uint64_t overflow_unjudged = 0;  // elements left unjudged by the f64 range rule (for the message)
  std::uint64_t typed_flips = 0;        // integer/bool elements flipped by typed rounding only (for the message)
  std::uint64_t range_flips = 0;        // integer/bool elements judged on the clamped draw instead (for the message)
  std::string added;                    // what the further draws added, for the message

  // The verdict, once decided early: a program failed to run (E502, E503), or the signatures or programs are
  // invalid (E501-E503). A phase that returns false leaves it here.
  std::optional<Result> early;

  /// Sets the verdict `code` with `msg` in `r` and returns a copy of `r`.
  Result fail(Code code, std::string msg);
  /// No mismatch and no degenerate output so far: the further phases run only then.
  bool passing() const { return degenerate.empty() && !r.has_mismatch; }
  /// Appends `what` to the message's list of added draws ("; " between entries).
  void note(const std::string& what);
};

/// A phase of the check: false when the verdict is decided (Context::early holds it).
using Phase = bool (*)(Context&);

bool phase_signature(Context& c);  // phase_signature.cpp
bool phase_base(Context& c);       // phase_base.cpp
bool phase_adaptive(Context& c);   // phase_adaptive.cpp
bool phase_cheap(Context& c);      // phase_cheap.cpp
bool phase_boundary(Context& c);   // phase_boundary.cpp
bool phase_guided(Context& c);     // phase_guided.cpp
/// The verdict from the results of every phase (§11 step 6 report; verdict.cpp).
Result verdict(Context& c);

// Judging one draw (judge.cpp).

/// Runs both programs on the draw `in` and compares them (LEIR.md §11 steps 3-5, with the typed runs' f64 judging
/// and the range rule); false (with `early` set) when a program fails to run. `at` says where the draw came from;
/// the original's outputs are left in `ob`, the candidate's in `oa`. An integer or bool difference on a draw near
/// exp's f64 overflow point is judged again on the draw with its float inputs clamped.
bool run_on(Context& c, const TensorMap& in, const ErrLocation& at, TensorMap& ob, TensorMap& oa);
/// run_on for the draw (seed, dist) of make_inputs (fixed inputs applied).
bool run_draw(Context& c, std::uint64_t seed, Distribution dist);
/// Counts the distinct values of the original's outputs `ob` per element (phase_adaptive.cpp).
void track(Context& c, const TensorMap& ob);

/// A LeirError's headline, or what() of any other exception.
std::string error_text(const std::exception& e);
/// "%.9g".
std::string fmt_num(double v);
/// Bitwise the same value, or both NaN.
bool same_value(double a, double b);

// The guided draws' judging (tie_check.cpp).

/// A difference between the original's outputs `b` and the candidate's `a` of `task` (a guided draw): NaN against a
/// number (NaN), or an element outside its per-dtype tolerance that also differs by more than 2^-4 of the larger
/// magnitude, or an infinity against another value (Yes). `exact` (class E): any difference in bits is Yes.
enum class Gross { No, Yes, NaN };
Gross gross_mismatch(const ir::Task& task, const TensorMap& b, const TensorMap& a, bool exact);

/// Both programs on `x`, unprobed, with `o`: do they differ grossly (gross_mismatch), or which one fails?
enum class Shows { No, Yes, OriginalFails, CandidateFails };
Shows shows(Context& c, const TensorMap& x, const interp::RunOptions& o);

/// The tie check of guided draw `guided` (of the search seeded `seed`) with input `in`: does its difference also
/// show on one of two copies whose float inputs are moved up, or down, by a few f64 ulps (perturb_float_inputs),
/// run with `where`? A copy on which a program fails counts as showing it.
bool survives_tie_check(Context& c, const TensorMap& in, const std::map<std::string, InputDomain>& domains,
                        std::uint64_t seed, std::int64_t guided, const interp::RunOptions& where);

}  // namespace steptp::equiv::detail
