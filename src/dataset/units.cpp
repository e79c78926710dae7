#include "dataset/units.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <cmath>

#include "step/equiv.hpp"
#include "base/hash.hpp"
#include "base/rng.hpp"
#include "ir/dtype.hpp"

#if __has_include("frontend/workloads.hpp")
#include "frontend/workloads.hpp"
#include "strategies/registry.hpp"
#include "strategies/strategy_lock.hpp"
#include "ir/canon.hpp"
#include "ir/printer.hpp"
#define STEPTP_HAVE_WORKLOADS 1
#endif
#if __has_include("frontend/onnx_import.hpp")
#include "frontend/onnx_import.hpp"
#include "frontend/partition.hpp"
#define STEPTP_HAVE_ONNX 1
#endif

namespace fs = std::filesystem;

namespace steptp::dataset {

ojson Reject::to_json() const {
  ojson j{{"unit", unit}, {"strategy", strategy}, {"stage", stage}, {"reason", reason}};
  if (!detail.empty()) j["detail"] = detail;
  if (!family.empty()) j["family"] = family;
  return j;
}

Reject Reject::from_json(const ojson& j) {
  Reject r;
  r.unit = j.value("unit", "");
  r.strategy = j.value("strategy", "");
  r.stage = j.value("stage", "");
  r.reason = j.value("reason", "");
  r.detail = j.value("detail", "");
  r.family = j.value("family", "");
  return r;
}

std::uint32_t shard_of(const std::string& workload, int index, std::uint32_t n) {
  return std::uint32_t(u64_le_of_hex(H({"steptp.shard/1", workload, std::to_string(index)})) % n);
}

std::string guess_family(const std::string& name) {
  std::string s;
  for (char c : name) s.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
      {"attention", {"attention", "attn"}},
      {"conv", {"conv"}},
      {"pool", {"pool"}},
      {"softmax", {"softmax"}},
      {"norm", {"norm"}},
      {"loss", {"loss", "entropy", "hinge", "kldiv", "huber"}},
      {"scan", {"cumsum", "cumprod", "scan", "cumulative"}},
      {"matmul", {"matmul", "gemm", "matrix", "bmm", "linear", "gemv"}},
      {"reduction", {"reduce", "sum", "mean", "max", "min", "argm", "prod"}},
  };
  std::vector<std::string> hits;
  for (const auto& [fam, keys] : table)
    for (const auto& k : keys)
      if (s.find(k) != std::string::npos) {
        hits.push_back(fam);
        break;
      }
  if (hits.empty()) return "elementwise";
  if (hits.size() == 1) return hits[0];
  // a loss or norm built from reductions is still a loss/norm; a conv/matmul with extra ops is "fused"
  if (hits[0] == "loss" || hits[0] == "norm" || hits[0] == "softmax") return hits[0];
  return "fused";
}

bool within_budget(const ir::Task& t, const GenConfig& cfg) {
  std::int64_t total = 0;
  for (const auto& k : t.known) {
    std::int64_t b = k.numel() * ir::dtype_bytes(k.dtype);
    if (b > cfg.max_buffer_bytes) return false;
    total += b;
  }
  return total <= cfg.max_total_bytes;
}

namespace {

bool glob_match(std::string_view pat, std::string_view s) {
  if (pat.empty()) return s.empty();
  if (pat[0] == '*') {
    for (std::size_t i = 0; i <= s.size(); ++i)
      if (glob_match(pat.substr(1), s.substr(i))) return true;
    return false;
  }
  if (s.empty()) return false;
  if (pat[0] != '?' && pat[0] != s[0]) return false;
  return glob_match(pat.substr(1), s.substr(1));
}

void add_task_file_units(const GenConfig& cfg, const std::string& path, std::vector<Unit>& units,
                         std::vector<Reject>& rejects) {
  auto tasks = ir::read_tasks_jsonl(path);
  std::map<std::string, int> seen;
  for (const auto& te : tasks) {
    if (!te.ok) {
      rejects.push_back({path + ":" + std::to_string(te.line), "", "S1", "unknown_workload", te.error.headline()});
      continue;
    }
    Unit u;
    u.wl.name = te.task.workload.empty() ? "task" + std::to_string(te.line) : te.task.workload;
    if (seen[u.wl.name]++) u.wl.name += "_" + std::to_string(te.line);
    u.wl.suite = te.task.suite.empty() ? "custom" : te.task.suite;
    u.wl.family = guess_family(u.wl.name);
    u.wl.kind = SourceKind::TaskFile;
    u.wl.path = path;
    u.wl.line = te.line;
    u.index = 0;
    for (const auto& k : te.task.known)
      if (k.role == ir::Role::Output) {
        u.dtype = std::string(ir::dtype_name(k.dtype));
        break;
      }
    u.instance_seed = derive(cfg.master_seed, "instance", {u.wl.name, "0", "0"});
    if (!within_budget(te.task, cfg)) {
      rejects.push_back({u.name(), "", "S2", "instance_over_budget", ""});
      continue;
    }
    units.push_back(std::move(u));
  }
}

#ifdef STEPTP_HAVE_ONNX
/// One unit per distinct task of the partitioned model (named "<model>__<k>", family from its anchor).
void add_partitioned_units(const GenConfig& cfg, const Unit& model_unit, std::vector<Unit>& units,
                           std::vector<Reject>& rejects) {
  frontend::Partition part;
  try {
    frontend::OnnxImport imp = frontend::import_onnx(model_unit.wl.path);
    part = frontend::partition_import(imp, model_unit.wl.name);
  } catch (const std::exception& e) {
    rejects.push_back({model_unit.name(), "", "S3", "task_invalid", e.what()});
    return;
  }
  for (auto& pt : part.tasks) {
    Unit u = model_unit;
    u.wl.name = pt.task.workload;
    u.wl.family = pt.family;
    u.wl.kind = SourceKind::SubgraphTask;
    u.wl.weight = pt.weight;
    pt.task.suite = u.wl.suite;
    for (const auto& k : pt.task.known)
      if (k.role == ir::Role::Output) {
        u.dtype = std::string(ir::dtype_name(k.dtype));
        break;
      }
    u.instance_seed = derive(cfg.master_seed, "instance", {u.wl.name, "0", "0"});
    if (!within_budget(pt.task, cfg)) {
      rejects.push_back({u.name(), "", "S2", "instance_over_budget", ""});
      continue;
    }
    u.wl.task = std::make_shared<const ir::Task>(std::move(pt.task));
    u.wl.params = std::make_shared<const interp::TensorMap>(std::move(pt.params));
    units.push_back(std::move(u));
  }
}
#endif

void add_onnx_units(const GenConfig& cfg, const std::string& dir, std::vector<Unit>& units,
                    [[maybe_unused]] std::vector<Reject>& rejects) {
  std::vector<fs::path> models;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) models.push_back(dir);
  else {
    if (!fs::is_directory(dir, ec)) throw std::invalid_argument("--onnx: not a directory: " + dir);
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator(); ++it)
      if (it->is_regular_file() && it->path().extension() == ".onnx") models.push_back(it->path());
  }
  std::sort(models.begin(), models.end());
  for (const auto& m : models) {
    Unit u;
    fs::path model_dir = m.filename() == "model.onnx" ? m.parent_path() : m.parent_path() / m.stem();
    u.wl.name = model_dir.filename().string();
    std::string parent = model_dir.parent_path().filename().string();
    u.wl.suite = (parent == "level1" || parent == "level2") ? parent : "custom";
    u.wl.family = guess_family(u.wl.name);
    u.wl.kind = SourceKind::Onnx;
    u.wl.path = m.string();
    u.index = 0;
    u.dtype = "f32";
    u.instance_seed = derive(cfg.master_seed, "instance", {u.wl.name, "0", "0"});
#ifndef STEPTP_HAVE_ONNX
    rejects.push_back({u.name(), "", "S1", "unknown_workload", "built without the ONNX importer"});
    continue;
#else
    if (!cfg.onnx_whole) {
      add_partitioned_units(cfg, u, units, rejects);
      continue;
    }
#endif
    units.push_back(std::move(u));
  }
}

}  // namespace

#ifdef STEPTP_HAVE_WORKLOADS
namespace {
#include "dataset/units_builtin.inc"
}  // namespace
#endif

std::vector<Unit> plan_units(const GenConfig& cfg, std::vector<Reject>& rejects, const RootPlan& plan) {
  std::vector<Unit> units;
#ifdef STEPTP_HAVE_WORKLOADS
  if (cfg.builtin) add_builtin_units(cfg, units, rejects, plan);
#else
  if (cfg.builtin && !cfg.workloads.empty())
    for (const auto& w : cfg.workloads) rejects.push_back({w, "", "S1", "unknown_workload", "no built-in catalogue"});
#endif
  for (const auto& d : cfg.onnx_dirs) add_onnx_units(cfg, d, units, rejects);
  for (const auto& f : cfg.task_files) add_task_file_units(cfg, f, units, rejects);
  std::sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) {
    return a.wl.name != b.wl.name ? a.wl.name < b.wl.name : a.index < b.index;
  });
  // A workload name may come from two sources; keep the first of equal units.
  units.erase(std::unique(units.begin(), units.end(),
                          [](const Unit& a, const Unit& b) { return a.wl.name == b.wl.name && a.index == b.index; }),
              units.end());
  if (cfg.max_units > 0 && units.size() > std::size_t(cfg.max_units)) units.resize(cfg.max_units);
  (void)glob_match;
  (void)plan;
  return units;
}

ir::Task emit_root_task(const Unit& u) {
  switch (u.wl.kind) {
    case SourceKind::TaskFile: {
      auto tasks = ir::read_tasks_jsonl(u.wl.path);
      for (auto& te : tasks)
        if (te.line == u.wl.line) {
          if (!te.ok) throw ir::LeirError(te.error);
          te.task.workload = u.wl.name;
          te.task.suite = u.wl.suite;
          return te.task;
        }
      throw std::runtime_error("task file line vanished: " + u.wl.path);
    }
    case SourceKind::Onnx: {
#ifdef STEPTP_HAVE_ONNX
      auto imp = frontend::import_onnx(u.wl.path);
      imp.task.workload = u.wl.name;
      imp.task.suite = u.wl.suite;
      return imp.task;
#else
      throw std::runtime_error("built without the ONNX importer");
#endif
    }
    case SourceKind::SubgraphTask: {
      if (!u.wl.task) throw std::runtime_error("unit " + u.name() + " has no extracted task");
      ir::Task t = *u.wl.task;
      t.suite = u.wl.suite;
      return t;
    }
    case SourceKind::Builtin:
#ifdef STEPTP_HAVE_WORKLOADS
      return emit_builtin(u);
#else
      throw std::runtime_error("built without the workload catalogue");
#endif
  }
  throw std::runtime_error("bad unit source");
}

}  // namespace steptp::dataset
