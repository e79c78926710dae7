#include "step/record.hpp"

#include <tuple>

#include "step/config.hpp"
#include "ir/dtype.hpp"

namespace steptp::dataset {

ojson known_json(const std::vector<ir::KnownBuffer>& known) {
  ojson k = ojson::array();
  for (const auto& b : known) {
    k.push_back({{"name", b.name}, {"role", std::string(ir::role_name(b.role))},
                 {"dtype", std::string(ir::dtype_name(b.dtype))}, {"shape", b.shape}});
    // A declared value range travels with the task (absent for Any, as in the task JSON): without it a record's
    // re-applied D candidate loses the sign facts it was proven from (S9).
    if (b.range != ir::ValueRange::Any) k.back()["range"] = std::string(ir::value_range_name(b.range));
  }
  return k;
}

ir::Task record_task(const ojson& rec, bool after) {
  ojson t;
  t["workload"] = rec.at("workload");
  t["suite"] = rec.at("suite");
  t["known"] = rec.at("before").at("known");
  t["leir"] = after ? rec.at("after").at("leir") : rec.at("before").at("leir");
  return ir::parse_task(t.dump());
}

namespace {

bool is_hex(const ojson& v, std::size_t n) {
  if (!v.is_string()) return false;
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() != n) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::vector<std::string> record_schema_errors(const ojson& r) {
  std::vector<std::string> e;
  auto need = [&](const ojson& o, const char* key, bool (ojson::*pred)() const noexcept, const std::string& where) {
    if (!o.is_object() || !o.contains(key)) {
      e.push_back("missing " + where + key);
      return false;
    }
    if (!(o[key].*pred)()) {
      e.push_back("bad type of " + where + key);
      return false;
    }
    return true;
  };
  if (!r.is_object()) return {"record is not an object"};
  if (!r.contains("schema") || r["schema"] != kRecordSchema) e.push_back("schema is not steptp.record/1");
  if (!is_hex(r.value("record_id", ojson()), 32)) e.push_back("record_id is not 32 hex digits");
  if (!is_hex(r.value("task_id", ojson()), 32)) e.push_back("task_id is not 32 hex digits");
  for (const char* k : {"unit", "workload", "suite", "family", "reasoning"}) need(r, k, &ojson::is_string, "");
  if (need(r, "instance", &ojson::is_object, "")) {
    need(r["instance"], "index", &ojson::is_number_integer, "instance.");
    need(r["instance"], "params", &ojson::is_object, "instance.");
    need(r["instance"], "dtype", &ojson::is_string, "instance.");
  }
  if (need(r, "seed", &ojson::is_object, "")) {
    need(r["seed"], "master", &ojson::is_number_integer, "seed.");
    if (!is_hex(r["seed"].value("instance", ojson()), 16)) e.push_back("seed.instance is not 16 hex digits");
    if (!is_hex(r["seed"].value("candidate", ojson()), 16)) e.push_back("seed.candidate is not 16 hex digits");
  }
  if (need(r, "step", &ojson::is_object, "")) {
    need(r["step"], "index", &ojson::is_number_integer, "step.");
    if (!r["step"].contains("trajectory_id") || !r["step"].contains("parent_record_id"))
      e.push_back("missing step.trajectory_id/parent_record_id");
    if (!is_hex(r["step"].value("root_task_id", ojson()), 32)) e.push_back("step.root_task_id is not 32 hex digits");
  }
  if (need(r, "before", &ojson::is_object, "")) {
    need(r["before"], "leir", &ojson::is_string, "before.");
    if (need(r["before"], "known", &ojson::is_array, "before."))
      for (const auto& k : r["before"]["known"])
        if (!k.is_object() || !k.contains("name") || !k.contains("role") || !k.contains("dtype") || !k.contains("shape"))
          e.push_back("bad before.known entry");
  }
  if (need(r, "strategy", &ojson::is_object, "")) {
    need(r["strategy"], "name", &ojson::is_string, "strategy.");
    need(r["strategy"], "family", &ojson::is_string, "strategy.");
    if (need(r["strategy"], "class", &ojson::is_string, "strategy.")) {
      std::string c = r["strategy"]["class"];
      if (c != "E" && c != "R" && c != "D" && c != "P") e.push_back("strategy.class not in E/R/D/P");
    }
  }
  if (need(r, "params", &ojson::is_object, "")) {
    need(r["params"], "candidate", &ojson::is_string, "params.");
    need(r["params"], "values", &ojson::is_object, "params.");
  }
  if (need(r, "after", &ojson::is_object, "")) need(r["after"], "leir", &ojson::is_string, "after.");
  if (need(r, "facts", &ojson::is_array, ""))
    for (const auto& f : r["facts"])
      if (!f.is_object() || !f.contains("k")) e.push_back("fact without k");
  if (need(r, "equivalence", &ojson::is_object, ""))
    for (const char* k : {"mode", "draws", "elements", "max_abs_err", "max_rel_err", "rtol", "atol", "interpreter"})
      if (!r["equivalence"].contains(k)) e.push_back(std::string("missing equivalence.") + k);
  if (!r.contains("measurement")) e.push_back("missing measurement");
  else if (!r["measurement"].is_null())
    for (const char* k : {"before", "after", "speedup", "speedup_vs_root", "noisy", "threads", "cache", "env"})
      if (!r["measurement"].contains(k)) e.push_back(std::string("missing measurement.") + k);
  if (need(r, "tokens", &ojson::is_object, ""))
    for (const char* k : {"rule", "leir_before", "leir_after", "tir_before", "tir_after", "prompt", "completion"})
      if (!r["tokens"].contains(k)) e.push_back(std::string("missing tokens.") + k);
  if (need(r, "versions", &ojson::is_object, ""))
    for (const char* k : {"steptp", "generator", "lowering", "renderer", "prompt"})
      if (!r["versions"].contains(k)) e.push_back(std::string("missing versions.") + k);
  return e;
}

bool record_less(const ojson& a, const ojson& b) {
  auto key = [](const ojson& r) {
    return std::make_tuple(r["workload"].get<std::string>(), r["instance"]["index"].get<std::int64_t>(),
                           r["step"]["index"].get<std::int64_t>(), r["strategy"]["name"].get<std::string>(),
                           r["record_id"].get<std::string>());
  };
  return key(a) < key(b);
}

}  // namespace steptp::dataset
