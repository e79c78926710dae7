// Tasks: a LEIR program plus its known-buffer signature (LEIR.md §2), and JSON/JSONL I/O.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ast.hpp"
#include "base/diag.hpp"
#include "base/file_io.hpp"  // read_file, write_file_atomic (declared there)

namespace steptp::ir {

enum class Role : std::uint8_t { Input, Constant, Param, Output };
std::string_view role_name(Role r);

/// Declared value range of a known input (STRATEGIES.md §4: "an optional declared value range per known input").
/// Sign analysis (§9.4) reads it, and the equivalence check's draws respect it (equiv/inputs.cpp). JSON member
/// "range": "positive" (> 0) or "nonnegative" (>= 0); absent for Any, so tasks without it round-trip unchanged.
enum class ValueRange : std::uint8_t { Any, Positive, NonNegative };
std::string_view value_range_name(ValueRange r);  // "any", "positive", "nonnegative"

/// One known buffer. Shape entries are in [1, 2^31); an empty shape is 0-d.
struct KnownBuffer {
  std::string name;
  Role role = Role::Input;
  DType dtype = DType::F32;
  std::vector<std::int64_t> shape;
  ValueRange range = ValueRange::Any;
  bool operator==(const KnownBuffer&) const = default;
  std::int64_t numel() const;
};

/// A task. `program` is the parsed LEIR; `workload`/`suite` are free-form labels.
struct Task {
  std::string workload;
  std::string suite;
  std::vector<KnownBuffer> known;
  Program program;

  const KnownBuffer* find_known(std::string_view name) const;
};

/// Largest task JSON text parse_task accepts (bytes; E107): the LEIR limit (kMaxProgramBytes) plus room for the
/// known list and other members.
inline constexpr std::size_t kMaxTaskBytes = std::size_t{4} << 20;

/// Parses one task JSON object (text). Throws LeirError: E101 (malformed JSON or member), E102 (bad role, dtype,
/// shape), E103 (duplicate name), E104 (known order), E105 (no output), E107 (text over kMaxTaskBytes), and any
/// parse error of the LEIR text (E001-E015).
Task parse_task(std::string_view json_text);

/// Serialises a task exactly like Python json.dumps (members workload, suite, known, leir; ", " and ": "
/// separators; ASCII). Round-trips corpus lines byte for byte.
std::string task_to_json(const Task& t);

/// Reads a JSONL file: one task per non-empty line. Each element is either a task or the error for that line
/// (the error's path is prefixed with "line N: "; for a failed line whose JSON parses, task.workload still holds its
/// "workload" member). Throws std::runtime_error if the file cannot be read (the message gives the OS reason).
struct TaskOrError {
  std::size_t line = 0;
  bool ok = false;
  Task task;
  Diagnostic error;
};
std::vector<TaskOrError> read_tasks_jsonl(const std::string& path);

/// Reads a file that holds one task (a .json object) or JSONL (first valid task). Throws LeirError or
/// std::runtime_error (unreadable file).
Task read_task_file(const std::string& path);

}  // namespace steptp::ir
