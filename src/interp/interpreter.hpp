// Reference interpreter (LEIR.md §8). The task is compiled once into a closure tree / bytecode; run() does no
// string work.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
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

struct RunOptions {
  /// false (default): float arithmetic in f64, values kept unrounded. true: LEIR.md §8.2/§8.3 exactly: every
  /// operation in its static type, f16/bf16 rounded after each op, conversion to the buffer dtype on store.
  bool typed = false;
  /// Checked mode: also detect E306 and E307 (§8.5). Slower.
  bool checked = false;
  /// Abort with LeirError E308 ("step limit exceeded") after this many statement executions (0: no limit).
  std::uint64_t max_steps = 0;
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
  /// The validated, annotated copy of the task (statement offsets refer to its canonical text).
  const ir::Task& task() const;
  /// Its analysis (buffers with inferred shapes, warnings).
  const ir::Analysis& analysis() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

enum class Distribution : std::uint8_t { Normal, Uniform };  // N and U of LEIR.md §11

/// Inputs for every non-output known buffer, generated exactly as LEIR.md §11 step 2 (SplitMix64 seeded with
/// 2*seed+d; gather-index integers in [0, n)).
/// Validates a copy of `task` to find gather extents; if it does not validate, only known shapes are used.
TensorMap make_inputs(const ir::Task& task, std::uint64_t seed, Distribution dist);
/// The same for an already compiled task (no re-validation).
TensorMap make_inputs(const Interpreter& interp, std::uint64_t seed, Distribution dist);

}  // namespace steptp::interp
