// Coverage-guided draws of the equivalence check (Options::Guided, equiv/phase_guided.cpp): the input domains that
// a mutated draw must respect, the coverage features of a run, and the mutation of a draw.
//
// The method is a greybox fuzzer's (AFL's havoc stage and hit-count buckets, libFuzzer's value profile) applied to
// the inputs of two programs: a draw that makes either program's probes (RunOptions::coverage) reach a feature no
// earlier draw reached is kept, and later draws are mutations of kept ones. A difference that needs a conjunction
// of rare per-element conditions (every element of a buffer >= 0, an exact product of gathered integers, a value
// exactly 0 in f16) is reached one condition at a time, each step rewarded by a new hit-count bucket.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "equiv/inputs.hpp"
#include "interp/interpreter.hpp"
#include "interp/splitmix64.hpp"

namespace steptp::equiv {

/// What make_inputs keeps true of one drawn buffer, and a mutated draw keeps too (LEIR.md §11 step 2).
struct InputDomain {
  ir::DType dtype = ir::DType::F32;
  ir::ValueRange range = ir::ValueRange::Any;  // declared range (STRATEGIES.md §4)
  std::int64_t gather = 0;                     // > 0: a gather index, its values in [0, gather)
};

/// The domains of the buffers make_inputs draws for `interp`'s task (non-output known buffers), less those named
/// in `fixed` (given values, never mutated; may be null).
std::map<std::string, InputDomain> input_domains(const Interpreter& interp, const TensorMap* fixed);

/// Largest float magnitude of a guided draw: 2^12, the order of the largest values of distribution S (|N| x 2^10).
/// Beyond the draws' envelope an equivalent rewrite may overflow where the original does not (STRATEGIES.md §6:
/// overflow thresholds are not domain conditions), so a mismatch there would not be a defect.
inline constexpr double kMaxGuidedMagnitude = 0x1.0p12;

/// `v` made a value make_inputs could have drawn for domain `d`: a float clamped to +-kMaxGuidedMagnitude, a gather
/// index taken modulo its extent, a declared range applied as make_inputs does (magnitude kept; 0 becomes 1 for
/// "positive"), converted to the dtype (floats rounded, integers wrapped, bools v != 0), and -0 made +0. NaN and
/// infinities become 0 for integers.
double conform_input(double v, const InputDomain& d);

/// Hit-count buckets of a coverage counter (AFL): 1, 2, 3, 4-7, 8-15, 16-31, 32-127, >= 128 evaluations; -1 for 0.
int hit_bucket(std::uint32_t count);

/// The coverage features seen so far over runs of one program: a feature is a counter of RunOptions::coverage with
/// the hit-count bucket of its count, so that reaching a value class more or fewer times than before (all four
/// elements >= 0 rather than three) is new too.
class CoverageMap {
 public:
  /// Adds the features of one run's counters; returns how many of them were new.
  std::size_t add(const std::vector<std::uint32_t>& counts);
  /// Features seen.
  std::size_t size() const { return features_; }

 private:
  std::vector<std::uint8_t> seen_;  // per counter, one bit per bucket
  std::size_t features_ = 0;
};

/// A mutation of draw `parent` (a greybox fuzzer's havoc stage): 1 to 8 stacked edits (1 + a geometric count, mean
/// 2), each on one buffer of `domains` picked at random: an element set to a literal magnitude of `literals` (random
/// sign; floats times 1 (probability 1/2), 1 - 2^-5 or 1 + 2^-5, integers plus 0, -1 or 1 alike), to 0, to another element of the buffer, to a fresh normal
/// or wide value; an element negated, scaled by 2^k (k in [-24, 24]; integers: plus [-8, 8]), a bool flipped; the
/// whole buffer made >= 0, <= 0 or constant; the buffer replaced by `donor`'s (another kept draw); and, as
/// REDQUEEN's input-to-state replacement, from a comparison operand pair (a, b) that `parent`'s runs logged
/// (Coverage::operands; either order): every element equal to a set to b (times 1, 1 +- 2^-10 or 1 +- 2^-5;
/// integers b, b - 1 or b + 1), or, where no element equals a, one element v set to v * b / a or v + b - a (a
/// comparison of a scaled or shifted input). Every value is passed through conform_input. `parent` and `donor` hold
/// the buffers of `domains` (others are copied unchanged).
TensorMap mutate_inputs(const TensorMap& parent, const TensorMap& donor,
                        const std::map<std::string, InputDomain>& domains, const std::vector<double>& literals,
                        const std::vector<std::pair<double, double>>& operands, steptp_num::SplitMix64& g);

/// Most f64 ulps by which a tie-breaking perturbation moves a float input (perturb_float_inputs): 2^8, far above
/// the few ulps by which two roundings of one value differ, far below a band of inputs a random draw could meet.
inline constexpr int kTiePerturbUlps = 256;

/// `in` with every float element of `domains` (not a gather index) that is neither 0, nor an integer, nor +- one
/// of `literals` (the programs' literal magnitudes, rounded to the dtype) moved in direction `up` (else down) by k
/// f64 ulps, k drawn uniformly from 1..kTiePerturbUlps per element, then passed through conform_input (an f32, f16
/// or bf16 element is mostly rounded back); other elements and buffers unchanged. A difference that needs an f64
/// input to equal exactly a value that the two programs compute and round differently (set up by input-to-state
/// replacement: `H >= A` with A a copy of H, and H = (0.1 - F + 1) * G against 1.1 * G - F * G) shows on neither
/// perturbed copy; one on a band of inputs wider than 2^8 ulps, which starts at the copied value, shows on one of
/// them; one that needs an input to equal a literal or an integer (`A == 3.0`) keeps those elements
/// (Options::Guided).
TensorMap perturb_float_inputs(const TensorMap& in, const std::map<std::string, InputDomain>& domains,
                               const std::vector<double>& literals, bool up, steptp_num::SplitMix64& g);

}  // namespace steptp::equiv
