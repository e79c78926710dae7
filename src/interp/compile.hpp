// Internal to the interpreter: compiles a validated, annotated task into the closure tree of nodes.hpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "interp/stmt_nodes.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"

namespace steptp::interp::detail {

/// Checked mode (§8.5 rule 2): what a read of an `s`/`l` buffer must match.
struct ScopedRead {
  bool local = false;          // l: every enclosing B loop; s: the first B header of the top-level nest
  int first_axis = -1;         // s: hardware axis of that header (-1: none, no check)
  std::vector<int> axes;       // l: axes of the B loops enclosing the read
};

struct Compiled {
  std::vector<BufDesc> bufs;
  std::vector<std::unique_ptr<NestNode>> nests;
  int nslots = 0;
  std::vector<ScopedRead> scoped;
  int batch_temps = 0;  // batch temporaries (kBatch values each, per domain) a run must provide
  std::uint32_t probe_counters = 0;  // coverage counters of the probed variant (kProbeClasses per probe); 0 otherwise
};

/// Compiles `t` (already annotated by ir::validate_or_throw; `a` its analysis). `typed`: LEIR.md §8.2 precision;
/// `checked`: generic nodes with the E306/E307 hooks; `probes`: coverage probes (ProbeF, ProbeI, ProbeOrderF,
/// ProbeCmpF, ProbeCmpI) around every data-dependent expression node, numbered in compile order (the same numbering
/// for typed and untyped).
/// Throws LeirError for constructs it cannot compile.
std::unique_ptr<Compiled> compile_program(const ir::Task& t, const ir::Analysis& a, bool typed, bool checked,
                                          bool probes = false);

/// Hardware axis 0..5 (tx ty tz bx by bz) of a bound loop-variable name, or -1.
int hardware_axis(const std::string& var);

}  // namespace steptp::interp::detail
