#include "step/checker.hpp"

#include <sstream>
#include <vector>

#include "ir/canon.hpp"
#include "step/facts.hpp"
#include "step/prompt.hpp"
#include "step/reasoning.hpp"
#include "step/record.hpp"
#include "ir/printer.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy_lock.hpp"

namespace steptp::dataset {
namespace {

CheckVerdict fail(std::string clause, std::string detail) { return {false, std::move(clause), std::move(detail)}; }

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string l; std::getline(ss, l);) v.push_back(l);
  return v;
}

bool is_heading(const std::string& l) {
  for (const char* s : kSections)
    if (l == std::string(s) + ":") return true;
  return false;
}

}  // namespace

/// Compares the text with the re-rendered one section by section, naming the first failing clause.
CheckVerdict compare_reasoning(const std::string& got, const std::string& want) {
  auto g = lines_of(got), w = lines_of(want);
  std::string section = "(start)";
  int line_in_section = 0;
  for (std::size_t i = 0; i < std::max(g.size(), w.size()); ++i) {
    if (i < w.size() && is_heading(w[i])) {
      section = w[i].substr(0, w[i].size() - 1);
      line_in_section = 0;
    } else {
      ++line_in_section;
    }
    if (i >= g.size()) return fail("section " + section, "text ends early; missing: " + w[i]);
    if (i >= w.size()) return fail("extra text", "unexpected line: " + g[i]);
    if (g[i] == w[i]) continue;
    if (is_heading(w[i]) || is_heading(g[i]))
      return fail("section " + section, "missing or reordered section: expected '" + w[i] + "', got '" + g[i] + "'");
    return fail(section + " line " + std::to_string(line_in_section),
                "expected '" + w[i] + "', got '" + g[i] + "'");
  }
  return {};
}

ojson candidate_values(const strategy::Candidate& c) {
  ojson values = ojson::object();
  for (const auto& p : c.params) values[p.name] = ojson::parse(p.value.dump());
  return values;
}

std::string expected_reasoning(const ir::Task& before, const strategy::Applied& ap, const strategy::Candidate& c) {
  char cls = strategy::exactness_letter(ap.cls);
  return render_reasoning(compute_facts(before, ap.task, ap.facts, c.id(), cls, candidate_values(c)), c.strategy);
}

CheckVerdict check_record(const ojson& rec, const strategy::Applied* reapplied) {
  try {
    ir::Task before = record_task(rec, false);
    ir::Task after_rec = record_task(rec, true);
    const std::string name = rec.at("strategy").at("name");
    const strategy::StrategyInfo* s = strategy::find(name);
    if (!s) return fail("strategy", "unknown strategy " + name);
    if (rec["strategy"]["family"] != std::string(strategy::family_name(s->family)))
      return fail("strategy", "family differs from the registry");
    const std::string cid = rec.at("params").at("candidate");
    auto cand = strategy::parse_candidate_id(cid);
    if (!cand || cand->strategy != name) return fail("apply", "unparseable candidate id " + cid);
    strategy::Applied own;
    if (!reapplied) own = strategy::locked_apply(*s, before, *cand);
    const strategy::Applied& ap = reapplied ? *reapplied : own;
    if (alpha_canonical(ap.task) != alpha_canonical(after_rec) || ap.task.known != before.known)
      return fail("apply", "re-applying the candidate does not reproduce the after program");
    char cls = strategy::exactness_letter(ap.cls);
    if (rec["strategy"]["class"] != std::string(1, cls)) return fail("class", "class differs from apply's");
    ojson facts = compute_facts(before, ap.task, ap.facts, cid, cls, rec["params"]["values"]);
    if (canonical_json(facts) != canonical_json(rec.at("facts"))) {
      std::size_t i = 0;
      const auto& st = rec["facts"];
      while (i < facts.size() && i < st.size() && canonical_json(facts[i]) == canonical_json(st[i])) ++i;
      return fail("facts", "fact " + std::to_string(i) + " differs from the recomputed one");
    }
    return compare_reasoning(rec.at("reasoning").get<std::string>(), render_reasoning(facts, name));
  } catch (const std::exception& e) {
    return fail("analysis", std::string(e.what()).substr(0, 300));
  }
}

CheckVerdict check_answer(const ojson& rec, const std::string& assistant) {
  std::string want = render_assistant(rec.at("reasoning").get<std::string>(),
                                      {{rec["strategy"]["name"].get<std::string>(), rec["after"]["leir"].get<std::string>()}});
  if (assistant == want) return {};
  auto open = assistant.rfind("<answer>");
  auto close = assistant.rfind("</answer>");
  if (open == std::string::npos || close == std::string::npos || close < open) return fail("answer", "no answer block");
  try {
    ojson a = ojson::parse(assistant.substr(open + 8, close - open - 8));
    if (!a.is_object() || a.size() != 2 || a.value("applied_strategy", "") != rec["strategy"]["name"] ||
        a.value("transformed_IR", "") != rec["after"]["leir"])
      return fail("answer", "answer JSON differs from (strategy, after)");
  } catch (const std::exception&) {
    return fail("answer", "answer is not JSON");
  }
  auto t0 = assistant.find("<think>\n");
  auto t1 = assistant.find("\n</think>");
  if (t0 != 0 || t1 == std::string::npos) return fail("think", "missing think block");
  return compare_reasoning(assistant.substr(8, t1 - 8), rec["reasoning"].get<std::string>());
}

}  // namespace steptp::dataset
