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
  /// Coverage (the guided draws of equiv::check_equivalence, equiv/phase_guided.cpp): when set, the run
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

}  // namespace steptp::interp
