// A replayable step path (issue #49 item 4): a root program and the strategy steps that transform it, each named
// by its printed candidate id (STRATEGIES.md §5), so that a program found by any means (a long search, a plan
// written by hand) can be rebuilt, re-verified and re-timed by anyone with `steptp replay`.
//
// File form: one JSON object (docs/commands.md, "replay"):
//   {"workload": NAME, "params": {"n": 512}, "dtype": "f32",   a catalogue root (frontend::emit), or
//    "task": {<task object, LEIR.md §2>},                       an explicit root (exactly one of the two);
//    "steps": [{"strategy": "loop_split", "candidate": "loop_split@0/l2{outer=2}"}, ...],
//    "domain_policy": "prove" | "guard"                         optional, default "prove" (STRATEGIES.md §6);
//    any other member (how the path was found, figures) is kept in `meta` and not interpreted}
// A step's "strategy" must name its candidate's strategy. `steptp search` writes one such file per root
// (OUT/paths/).
#pragma once
#include <string>
#include <vector>

#include "base/error.hpp"
#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::search {

/// A step path file that cannot be used: unreadable or not JSON (S005 at the file), a member missing or mistyped
/// (S005 at `file: member`), an unknown workload (E109 is raised as ir::LeirError instead), a step whose candidate
/// no longer applies (S001/S002 at `file: steps[k]`).
class StepPathError : public Error {
 public:
  StepPathError(Code c, const std::string& msg, const std::string& where)
      : Error(c, msg, Location{0, where}, std::string(steptp::code_text(c)) + " at " + where + ": " + msg) {}
};

struct PathStep {
  std::string strategy;
  std::string candidate;  // printed id
};

struct StepPath {
  ir::Task root;
  std::string workload;   // the root's workload name (task's own when given as "task")
  core::ojson params;     // {"n": 512} for a catalogue root, else null
  std::string dtype = "f32";
  std::string domain_policy = "prove";
  std::vector<PathStep> steps;
  core::ojson meta = core::ojson::object();  // every other member of the file
  /// The file form (catalogue roots by workload and params, others by task).
  core::ojson to_json() const;
  /// to_json() as a file: one member per line, one step per line.
  std::string to_text() const;
};

/// Reads and checks a step path file (the root is emitted or parsed and validated; the steps are not applied).
/// Throws StepPathError, ir::LeirError (E108 unreadable, E107 too large, E109 unknown workload, a root that does not
/// validate).
StepPath read_step_path(const std::string& file);

/// Parses the file form held in `j`; `where` names it in errors.
StepPath step_path_from_json(const core::ojson& j, const std::string& where);

/// One replayed step: the program after it and the step's exactness class ('E', 'R', 'D', 'P').
struct ReplayedStep {
  ir::Task after;
  char cls = 'E';
};

/// Applies the steps in order, each to the program the previous one gave, under the path's domain policy. Throws
/// StepPathError S001/S002/S004 at `where: steps[k] (ID)` when a candidate does not apply.
std::vector<ReplayedStep> replay_steps(const StepPath& p, const std::string& where);

/// The loosest class of a path's steps (E < R < D < P, the order of STRATEGIES.md §6): the equivalence rule the
/// whole path is held to against its root. 'E' for an empty path.
char path_class(const std::vector<ReplayedStep>& steps);

}  // namespace steptp::search
