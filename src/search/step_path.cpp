#include "search/step_path.hpp"

#include <set>

#include "base/file_io.hpp"
#include "base/text.hpp"
#include "frontend/workloads.hpp"
#include "ir/dtype.hpp"
#include "ir/validate.hpp"
#include "strategies/config.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::search {

using core::ojson;

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& member, const std::string& msg) {
  throw StepPathError(Code::S005, (member.empty() ? "" : member + ": ") + msg, where);
}

std::string string_member(const ojson& j, const char* name, const std::string& where) {
  if (!j.contains(name) || !j[name].is_string()) bad(where, name, "missing, or not a string");
  return j[name].get<std::string>();
}

/// The root: a catalogue workload at `params` and `dtype`, or an explicit task.
void read_root(const ojson& j, const std::string& where, StepPath& p) {
  const bool by_name = j.contains("workload");
  if (j.contains("task") == by_name)
    bad(where, "", by_name ? "give the root as \"workload\" (with \"params\") or as \"task\", not both"
                           : "no root: give \"workload\" (with \"params\") or \"task\"");
  if (by_name) {
    p.workload = string_member(j, "workload", where);
    const frontend::Workload* found = nullptr;
    try {
      found = &frontend::find_workload_or_throw(p.workload);
    } catch (const ir::LeirError& e) {  // E109, located in the file
      throw ir::LeirError(e.code(), "workload: " + e.message() + ": '" + core::terminal_safe(p.workload) + "'", 0,
                          where);
    }
    const frontend::Workload& w = *found;
    frontend::Params given;
    if (j.contains("params")) {
      if (!j["params"].is_object()) bad(where, "params", "not an object of integers");
      for (const auto& [k, v] : j["params"].items()) {
        if (!v.is_number_integer()) bad(where, "params." + k, "not an integer");
        given[k] = v.get<std::int64_t>();
      }
    }
    if (j.contains("dtype")) p.dtype = string_member(j, "dtype", where);
    const auto dt = ir::parse_dtype(p.dtype);
    if (!dt) bad(where, "dtype", "unknown dtype '" + p.dtype + "'");
    try {
      p.root = frontend::emit(w, given, *dt);
      p.params = ojson::object();
      for (const auto& [k, v] : frontend::resolve_params(w, given)) p.params[k] = v;
    } catch (const std::invalid_argument& e) {
      bad(where, "params", e.what());
    }
  } else {
    if (!j["task"].is_object()) bad(where, "task", "not a task object (LEIR.md §2)");
    try {
      p.root = ir::parse_task(j["task"].dump());
      ir::validate_or_throw(p.root);
    } catch (const ir::LeirError& e) {  // the task's own code, located in the file
      throw StepPathError(e.id(), e.message() + " (task, at " + e.where().path +
                                      (e.where().offset ? " offset " + std::to_string(e.where().offset) : "") + ")",
                          where);
    }
    p.workload = p.root.workload;
    return;
  }
  ir::validate_or_throw(p.root);
}

}  // namespace

StepPath step_path_from_json(const ojson& j, const std::string& where) {
  if (!j.is_object()) bad(where, "", "not a JSON object");
  StepPath p;
  read_root(j, where, p);
  if (j.contains("domain_policy")) {
    p.domain_policy = string_member(j, "domain_policy", where);
    if (p.domain_policy != "prove" && p.domain_policy != "guard") bad(where, "domain_policy", "expected prove or guard");
  }
  if (!j.contains("steps") || !j["steps"].is_array()) bad(where, "steps", "missing, or not an array");
  for (std::size_t k = 0; k < j["steps"].size(); ++k) {
    const ojson& s = j["steps"][k];
    const std::string at = "steps[" + std::to_string(k) + "]";
    if (!s.is_object()) bad(where, at, "not an object");
    PathStep st;
    st.candidate = string_member(s, "candidate", where + ": " + at);
    if (s.contains("strategy")) st.strategy = string_member(s, "strategy", where + ": " + at);
    else if (const auto c = strategy::parse_candidate_id(st.candidate)) st.strategy = c->strategy;
    p.steps.push_back(std::move(st));
  }
  static const std::set<std::string> kRead{"workload", "params", "dtype", "task", "domain_policy", "steps"};
  for (const auto& [k, v] : j.items())
    if (!kRead.count(k)) p.meta[k] = v;
  return p;
}

StepPath read_step_path(const std::string& file) {
  const std::string text = ir::read_file(file);  // E108, E107
  ojson j;
  try {
    j = ojson::parse(text);
  } catch (const std::exception& e) {
    bad(file, "", std::string("not JSON (") + e.what() + ")");
  }
  return step_path_from_json(j, file);
}

ojson StepPath::to_json() const {
  ojson j = ojson::object();
  if (params.is_object()) {
    j["workload"] = workload;
    j["params"] = params;
    j["dtype"] = dtype;
  } else {
    j["task"] = ojson::parse(ir::task_to_json(root));
  }
  if (domain_policy != "prove") j["domain_policy"] = domain_policy;
  j["steps"] = ojson::array();
  for (const auto& s : steps) j["steps"].push_back({{"strategy", s.strategy}, {"candidate", s.candidate}});
  for (const auto& [k, v] : meta.items()) j[k] = v;
  return j;
}

std::string StepPath::to_text() const {
  const ojson j = to_json();
  std::string s = "{";
  bool first = true;
  for (const auto& [k, v] : j.items()) {
    s += std::string(first ? "\n" : ",\n") + "  " + core::dump_py(ojson(k)) + ": ";
    first = false;
    if (k != "steps" || v.empty()) {
      s += core::dump_py(v);
      continue;
    }
    s += "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += std::string(i ? ",\n    " : "\n    ") + core::dump_py(v[i]);
    s += "\n  ]";
  }
  return s + "\n}\n";
}

std::vector<ReplayedStep> replay_steps(const StepPath& p, const std::string& where) {
  strategy::StrategyConfig cfg = strategy::default_config();
  cfg.domain_policy = p.domain_policy == "guard" ? strategy::DomainPolicy::Guard : strategy::DomainPolicy::Prove;
  strategy::ScopedConfig scoped(cfg);
  std::vector<ReplayedStep> out;
  const ir::Task* cur = &p.root;
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const PathStep& st = p.steps[k];
    const std::string at = where + ": steps[" + std::to_string(k) + "] (" + st.candidate + ")";
    const auto c = strategy::parse_candidate_id(st.candidate);
    if (!c) throw StepPathError(Code::S002, "malformed candidate id (expected strategy@site{name=value,...})", at);
    if (!st.strategy.empty() && st.strategy != c->strategy)
      throw StepPathError(Code::S005, "\"strategy\" " + st.strategy + " is not the candidate's strategy", at);
    try {
      const strategy::StrategyInfo& s = strategy::find_or_throw(c->strategy);
      strategy::Applied a = strategy::locked_apply(s, *cur, *c);
      out.push_back({std::move(a.task), strategy::exactness_letter(a.cls)});
    } catch (const strategy::StrategyError& e) {
      std::string msg = e.what();
      if (msg.rfind(e.code() + " ", 0) == 0) msg.erase(0, e.code().size() + 1);  // S004's text names its code
      throw StepPathError(e.id(), msg, at);
    }
    cur = &out.back().after;
  }
  return out;
}

char path_class(const std::vector<ReplayedStep>& steps) {
  static const std::string kOrder = "ERDP";
  char worst = 'E';
  for (const auto& s : steps)
    if (kOrder.find(s.cls) > kOrder.find(worst)) worst = s.cls;
  return worst;
}

}  // namespace steptp::search
