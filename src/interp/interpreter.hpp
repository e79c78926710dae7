// Reference interpreter (LEIR.md §8). The task is compiled once into a closure tree / bytecode; run() does no
// string work.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::interp {

/// A dense row-major tensor. Values are held as double regardless of dtype (integers are exact up to 2^53).
struct Tensor {
  ir::DType dtype = ir::DType::F32;
  std::vector<std::int64_t> shape;
  std::vector<double> data;
  std::int64_t numel() const;
};
using TensorMap = std::map<std::string, Tensor>;

/// What a probed run records (RunOptions::coverage).
struct Coverage {
  /// Per probe p and value class k, how many evaluations fell in that class (entry 16p+k).
  std::vector<std::uint32_t> counts;
  /// Operand pairs (a, b) of two-operand comparisons and float max/min, each logged the first two times its probe
  /// and the comparison's outcome (or the operands' order) met: the input-to-state map of a greybox fuzzer
  /// (REDQUEEN), which tells a mutation what value would flip a comparison.
  std::vector<std::pair<double, double>> operands;
};

struct RunOptions {
  /// false (default): float arithmetic in f64, values kept unrounded. true: LEIR.md §8.2/§8.3 exactly: every
  /// operation in its static type, f16/bf16 rounded after each op, conversion to the buffer dtype on store.
  bool typed = false;
  /// Checked mode: also detect E306 and E307 (§8.5). Slower.
  bool checked = false;
  /// Batched execution of innermost loops (interp/batch.cpp): same outputs bit for bit, same errors at the same
  /// iteration, same step counts and progress calls, several times faster. false: every statement one iteration at
  /// a time (the reference the batched path is tested against). Checked mode always runs one at a time.
  bool batched = true;
  /// Abort with LeirError E308 ("step limit exceeded") after this many statement executions (0: no limit).
  std::uint64_t max_steps = 0;
  /// Called with the number of statement executions so far every `progress_every` executions (both set, or
  /// no calls). Runs on the interpreting thread; it may throw to abort the run.
  std::function<void(std::uint64_t)> progress;
  std::uint64_t progress_every = 0;
  /// Coverage (the guided draws of check_equivalence, EquivOptions::guided_inputs_if_cheap): when set, the run
  /// uses a variant of the program with a probe around every data-dependent expression node and fills *coverage
  /// (cleared first): the counts, per probe p and value class k, of the evaluations that fell in that class (entry
  /// 16p+k; classes: for a float node NaN, -inf, +inf, 0 and six magnitude bands per sign, for an integer or bool
  /// node ranges of values, interp/nodes.hpp float_class and int_class; a comparison counts false and true; a float
  /// max/min has a probe of its own for its operands' order a<b, a==b, a>b, unordered), and the comparison operands. The probe numbering depends on the program only, not
  /// on `typed`. Outputs, errors and step counts are those of an unprobed run; the counts and the set of logged
  /// operands are the same batched or not (`batched`).
  Coverage* coverage = nullptr;
};

/// Compiled program. Construction validates (validate_or_throw) and compiles; throws LeirError.
class Interpreter {
 public:
  explicit Interpreter(const ir::Task& task);
  ~Interpreter();
  Interpreter(Interpreter&&) noexcept;
  /// Runs on `inputs` (every input, constant and param by name, with the known shape). Returns the outputs.
  /// Throws LeirError E301-E307 with the statement offset, loop values and element index.
  TensorMap run(const TensorMap& inputs, const RunOptions& opt = {}) const;
  /// Statement executions of the last run().
  std::uint64_t last_steps() const;
  /// How many of them ran in batches (RunOptions::batched).
  std::uint64_t last_batched_steps() const;
  /// The validated, annotated copy of the task (statement offsets refer to its canonical text).
  const ir::Task& task() const;
  /// Its analysis (buffers with inferred shapes, warnings).
  const ir::Analysis& analysis() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Default statement budget per run of the commands that interpret a task on the CLI (run, equiv, lower --check):
/// 10^9 statement executions, about 10-30 s of the interpreter on one core.
inline constexpr std::uint64_t kDefaultStepBudget = 1'000'000'000;

/// Default statement budget per call of compiled code (`measure`, search roots): 10^10 statement executions,
/// seconds of compiled code per call, timed a dozen times or more.
inline constexpr std::uint64_t kDefaultCompiledStepBudget = 10'000'000'000;

/// Work estimate before interpreting: throws LeirError E309 ("over the statement budget", LEIR.md §12) when one run
/// of `task` executes more than `budget` statements (ir::statement_executions); `flag` is the option that raises
/// the budget, named in the message. budget 0: no limit.
void check_step_budget(const ir::Task& task, std::uint64_t budget, std::string_view flag = "--max-steps");

/// Default memory budget of one interpreter run on the CLI: 4 GiB.
inline constexpr std::uint64_t kDefaultMemoryBudget = std::uint64_t{4} << 30;

/// Bytes one interpreter run of `task` holds (estimate from the validator's buffer shapes): 9 bytes per element of
/// every buffer (an f64/i64 value and an initialised flag) plus 8 per element of the generated inputs. Saturates
/// at UINT64_MAX. Throws LeirError if the task does not validate.
std::uint64_t run_memory_bytes(const ir::Task& task);

/// Memory estimate before interpreting: throws LeirError E310 ("over the memory budget", LEIR.md §12) when
/// run_memory_bytes(task) exceeds `budget` bytes; `flag` names the option that raises it (in MiB). budget 0: no
/// limit.
void check_memory_budget(const ir::Task& task, std::uint64_t budget, std::string_view flag = "--max-memory");

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
/// it to its further draws (EquivOptions::extra_seeds_if_insensitive, extra_seeds_if_cheap).
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
/// boundary draws of check_equivalence (EquivOptions::boundary_pairs_if_cheap). Throws std::invalid_argument when a
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

}  // namespace steptp::interp
