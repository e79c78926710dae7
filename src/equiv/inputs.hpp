// The draws of the equivalence check (LEIR.md §11 step 2): input distributions, deterministic input generation,
// segments between two draws, and the known buffers whose values are given rather than drawn.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "interp/interpreter.hpp"

namespace steptp::equiv {

using interp::Interpreter;
using interp::Tensor;
using interp::TensorMap;

/// Input distributions of the equivalence check (LEIR.md §11 step 2):
///  - N: floats standard normal, non-index integers in [-4, 4];
///  - U: floats uniform on [0.5, 1.5), non-index integers in [1, 4];
///  - W (wide): floats with a random sign and a log-uniform magnitude in [2^-4, 2^6), integers in [-16, 16];
///  - K (literal-directed): each element, with probability 1/4 standard normal (floats) or in [-4, 4] (integers),
///    otherwise a literal magnitude c of the programs compared (0 and 1 always included; integers: the integral
///    ones), with probability 1/3 replaced by c/d (integers: floor), |c-d| or c+d of two such magnitudes, with a
///    random sign, times 1 - 2^-5, 1 or 1 + 2^-5 (integers: plus -1, 0 or 1; a float 0 stays +0, as no
///    distribution yields -0, whose sign max/min reorderings may legitimately change), so that thresholds, clamps,
///    divisors and moduli written in the programs are met from both sides, also behind a scale or an offset
///    (`min(4*A,100)`: A = 100/4).
///  - S (skewed): per input buffer, one sign pattern of six (half zeros; all <= 0; all >= 0; mostly <= 0 and mostly
///    >= 0, with 1/8 of the other sign; one value for every element) and one magnitude scale of four (|N|;
///    log-uniform in [2^-4, 2^6); |N| x 2^-10; |N| x 2^10 — integers: [0, 4], [0, 16], 0, [0, 64]); bools all
///    false, all true, 1/8 or 7/8 true, or half; gather indices as in every distribution. No -0.
/// W and K were added for the mutation check of issue #16: N and U left thresholds such as `A>2`, integer
/// operations and clamps unexercised. S was added for differences that every element-wise independent draw
/// masks: an `or` over many comparisons (true as soon as one element is positive), a min over a buffer whose
/// every element must exceed a clamp, a value that matters only where a product is zero. check_equivalence adds
/// it to its further draws (Options::adaptive, Options::cheap).
enum class Distribution : std::uint8_t { Normal, Uniform, Wide, Literal, Skewed };

/// "N", "U", "W" or "K".
const char* distribution_name(Distribution d);

/// Distributions from their letters, in order ("NUWK" -> the first four). Throws std::invalid_argument naming the
/// first letter that is none of N, U, W, K, S or is repeated, or when `letters` is empty.
std::vector<Distribution> parse_distributions(std::string_view letters);

/// Magnitudes of the numeric literals of a program (IntLit and FloatLit nodes, `inf` excluded), with 0 and 1,
/// sorted and without duplicates: the value set of distribution K.
std::vector<double> literal_magnitudes(const ir::Program& p);

/// Inputs for every non-output known buffer, generated exactly as LEIR.md §11 step 2. The generator is
/// SplitMix64 seeded with 2*seed+d for N (d=0) and U (d=1), 2^63+seed for W, 2^62+seed for K and 2^61+seed for S
/// (S draws each buffer's pattern before its elements); gather-index integers (buffers read inside a subscript) are
/// in [0, n), n the smallest extent they index, under every distribution; bools are U01 < 0.5 except under S.
/// `literals` is K's value multiset, drawn uniformly by position (empty:
/// literal_magnitudes of `task`; check_equivalence passes comparison_literals of both programs).
/// Validates a copy of `task` to find gather extents; if it does not validate, only known shapes are used.
TensorMap make_inputs(const ir::Task& task, std::uint64_t seed, Distribution dist,
                      const std::vector<double>& literals = {});
/// The same for an already compiled task (no re-validation).
TensorMap make_inputs(const Interpreter& interp, std::uint64_t seed, Distribution dist,
                      const std::vector<double>& literals = {});

/// The draw at `t` in [0, 1] on the segment from draw `from` (t = 0) to draw `to` (t = 1), two input maps of one
/// task with the same buffers (make_inputs with two seeds or distributions): a float or integer element is
/// (1 - t) x0 + t x1, integers rounded to the nearest (a gather index stays in range), then converted to its dtype
/// as make_inputs does; a bool element (or one whose two values are not both finite) switches from x0 to x1 at a
/// point of its own in [0, 1), drawn by SplitMix64 from `salt`, so that a bisection over t also singles out one
/// element. Every value lies between the two ends, so a declared range (STRATEGIES.md §4) still holds. Used by the
/// boundary draws of check_equivalence (Options::boundary). Throws std::invalid_argument when a
/// buffer of `from` is missing from `to` or differs in dtype or size.
TensorMap interpolate_inputs(const TensorMap& from, const TensorMap& to, double t, std::uint64_t salt);

/// Known buffers whose values are given rather than drawn: a model's weights (the `param` and `constant` buffers
/// of an imported task, stored in its params sidecar, frontend/params_sidecar.hpp). Checks that every entry of
/// `fixed` names a non-output known buffer of `task` with the same dtype and shape and holds numel values; throws
/// std::invalid_argument ("params: <name>: <what>") otherwise. Buffers of the task that `fixed` lacks stay drawn.
void check_fixed_inputs(const ir::Task& task, const TensorMap& fixed);

/// Replaces the drawn values of `inputs` by those of `fixed` (every entry of `fixed` must be in `inputs`; call
/// check_fixed_inputs first). The other buffers keep exactly the values make_inputs drew, so a draw with fixed
/// weights differs from the plain draw only in the fixed buffers.
void apply_fixed_inputs(TensorMap& inputs, const TensorMap& fixed);

}  // namespace steptp::equiv
