#include "step/prompt.hpp"

#include "ir/dtype.hpp"
#include "strategies/registry.hpp"

namespace steptp::core {

std::string render_system() {
  std::string s = kSystemIntro;
  s += "\nStrategies:";
  for (const auto& st : strategy::registry()) {
    s += "\n- ";
    s += st.name;
    s += ": ";
    s += st.description;
  }
  return s;
}

namespace {

std::string tail(int n) {
  if (n <= 1)
    return "Task: apply one optimisation strategy to the current program and return the transformed program. It "
           "must compute the same outputs as the current program, within the tolerance of its dtype.\n"
           "Format: first your reasoning inside <think></think>, then <answer></answer> holding only the JSON "
           "object {\"applied_strategy\": \"<strategy name>\", \"transformed_IR\": \"<LEIR program>\"}.";
  return "Task: give at least " + std::to_string(n) +
         " distinct transformed programs, each obtained by applying one optimisation strategy to the current "
         "program. Each must compute the same outputs as the current program, within the tolerance of its dtype.\n"
         "Format: first your reasoning inside <think></think>, then <answer></answer> holding only a JSON array of "
         "objects {\"applied_strategy\": \"<strategy name>\", \"transformed_IR\": \"<LEIR program>\"}, one per "
         "program.";
}

}  // namespace

std::string render_user(const std::string& workload, const std::string& leir, const ojson& known, int n) {
  std::string u = "Workload: " + workload + "\nCurrent program (LEIR):\n" + leir +
                  "\nKnown buffers (name, role, dtype, shape):";
  for (const auto& k : known) {
    u += "\n- " + k["name"].get<std::string>() + ", " + k["role"].get<std::string>() + ", " +
         k["dtype"].get<std::string>() + ", [";
    bool first = true;
    for (const auto& d : k["shape"]) {
      u += (first ? "" : ", ") + d.dump();
      first = false;
    }
    u += "]";
    if (k.contains("range")) u += ", " + k["range"].get<std::string>();  // a declared range: "positive"
  }
  u += "\nKeep every known buffer's name, dtype and shape unchanged.\n" + tail(n);
  return u;
}

std::string render_user(const std::string& workload, const std::string& leir, const std::vector<ir::KnownBuffer>& known,
                        int n) {
  ojson k = ojson::array();
  for (const auto& b : known) {
    k.push_back({{"name", b.name}, {"role", std::string(ir::role_name(b.role))},
                 {"dtype", std::string(ir::dtype_name(b.dtype))}, {"shape", b.shape}});
    if (b.range != ir::ValueRange::Any) k.back()["range"] = std::string(ir::value_range_name(b.range));
  }
  return render_user(workload, leir, k, n);
}

ojson answer_object(const std::string& strategy, const std::string& leir) {
  ojson o;
  o["applied_strategy"] = strategy;
  o["transformed_IR"] = leir;
  return o;
}

std::string render_assistant(const std::string& reasoning, const std::vector<std::pair<std::string, std::string>>& answers) {
  std::string json;
  if (answers.size() == 1) {
    json = dump_py(answer_object(answers[0].first, answers[0].second));
  } else {
    ojson arr = ojson::array();
    for (const auto& [s, l] : answers) arr.push_back(answer_object(s, l));
    json = dump_py(arr);
  }
  return "<think>\n" + reasoning + "\n</think>\n<answer>" + json + "</answer>";
}

}  // namespace steptp::core
