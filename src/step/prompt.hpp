// Chat prompt templates, schema steptp.prompt/1 (DATASET.md §5). One renderer used by export, eval and search:
// system = fixed instruction + strategy menu (registry order), user = workload + program + known buffers + task +
// format lines, assistant = "<think>\n" + reasoning + "\n</think>\n<answer>" + JSON + "</answer>".
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "base/json_text.hpp"
#include "ir/task.hpp"

namespace steptp::core {

inline constexpr const char* kSystemIntro =
    "You optimise tensor programs written in LEIR. You apply exactly one optimisation strategy per transformed "
    "program, keep the outputs numerically equivalent, and answer in the requested format.";

/// System message: intro, "Strategies:", one "- name: description" line per registered strategy.
std::string render_system();

/// User message for a program (printed LEIR `leir`) and known list, asking for n >= 1 programs.
std::string render_user(const std::string& workload, const std::string& leir, const std::vector<ir::KnownBuffer>& known,
                        int n);
/// Same, with the known list given as the record's JSON array [{name, role, dtype, shape}].
std::string render_user(const std::string& workload, const std::string& leir, const ojson& known, int n);

/// Assistant message. answers: (strategy, after LEIR) pairs; one pair gives the n = 1 object form, more the array.
std::string render_assistant(const std::string& reasoning, const std::vector<std::pair<std::string, std::string>>& answers);

/// The JSON object {"applied_strategy": s, "transformed_IR": leir} as written in answers.
ojson answer_object(const std::string& strategy, const std::string& leir);

}  // namespace steptp::core

// The dataset and step layers use these names unqualified.
namespace steptp::dataset {
using namespace steptp::core;
}  // namespace steptp::dataset
