#include "step/config.hpp"

#include <set>
#include <stdexcept>

#include "base/hash.hpp"
#include "step/dataset_dir.hpp"
#include "ir/task.hpp"

namespace steptp::dataset {

#define GEN_FIELDS(X)                                                                                            \
  X(master_seed) X(workloads) X(builtin) X(onnx_dirs) X(onnx_whole) X(task_files) X(per_family) X(cover_strategies) X(instances_per_workload)     \
  X(small_shapes) X(max_buffer_bytes) X(max_total_bytes) X(max_flops) X(target_root_ops) X(params_per_site)                        \
  X(max_candidates_per_strategy) X(max_depth) X(trajectories_per_task) X(candidates_per_step)                   \
  X(trajectory_policy) X(strategies) X(equiv_draws) X(interp_max_ops) X(measure) X(timer) X(repeats) X(warmup)  \
  X(threads) X(min_repeat_ms) X(noise_limit) X(cold_cache) X(measure_sessions) X(measure_timeout_s) X(max_units)

#define FILTER_FIELDS(X)                                                                                        \
  X(filter_seed) X(split_train) X(split_val) X(split_test) X(max_prompt_tokens) X(max_completion_tokens)         \
  X(max_total_tokens) X(max_answers_per_prompt) X(min_per_strategy) X(easy) X(p_easy) X(cap_easy)               \
  X(forward_reversible) X(p_forward) X(cap_forward) X(reverse_rewrites) X(p_reverse) X(cap_reverse)             \
  X(cap_per_strategy) X(max_strategy_share) X(p_multi) X(max_multi_n) X(eval_n) X(fail_on_shortcut)

ojson GenConfig::to_json() const {
  ojson j;
#define X(f) j[#f] = f;
  GEN_FIELDS(X)
#undef X
  // Written only when set, so that the hash (and every cache) of a configuration without it is unchanged.
  if (root_candidates != 0) j["root_candidates"] = root_candidates;
  if (state_sampling != "candidates") j["state_sampling"] = state_sampling;
  if (cover_units != 1) j["cover_units"] = cover_units;
  if (!tokenizer.empty()) j["tokenizer"] = tokenizer;  // likewise (DATASET.md §4 "Token counts")
  if (fp_contract) j["fp_contract"] = true;
  return j;
}

GenConfig GenConfig::from_json(const ojson& j) {
  GenConfig c;
  static const std::set<std::string> known = {
#define X(f) #f,
      GEN_FIELDS(X)
#undef X
      "root_candidates", "state_sampling", "cover_units", "tokenizer", "fp_contract",
  };
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) throw std::invalid_argument("unknown generation option '" + it.key() + "'");
#define X(f) \
  if (j.contains(#f)) j.at(#f).get_to(c.f);
  GEN_FIELDS(X)
#undef X
  if (j.contains("root_candidates")) j.at("root_candidates").get_to(c.root_candidates);
  if (j.contains("tokenizer")) j.at("tokenizer").get_to(c.tokenizer);
  if (j.contains("state_sampling")) j.at("state_sampling").get_to(c.state_sampling);
  if (j.contains("cover_units")) j.at("cover_units").get_to(c.cover_units);
  if (j.contains("fp_contract")) j.at("fp_contract").get_to(c.fp_contract);
  if (c.state_sampling != "candidates" && c.state_sampling != "strategies")
    throw std::invalid_argument("state_sampling must be \"candidates\" or \"strategies\", not \"" + c.state_sampling + "\"");
  return c;
}

GenConfig GenConfig::small_default() {
  GenConfig c;
  c.per_family = 2;
  c.cover_strategies = true;
  c.cover_units = 3;
  c.instances_per_workload = 1;
  c.max_candidates_per_strategy = 1;
  c.root_candidates = 4;
  c.candidates_per_step = 3;
  c.state_sampling = "strategies";
  c.max_depth = 3;
  c.trajectories_per_task = 2;
  return c;
}

std::string GenConfig::hash() const {
  return H({"steptp.gen/1", canonical_json(to_json()), std::to_string(kGeneratorVersion),
            std::to_string(kLoweringVersion), std::to_string(kRendererVersion)});
}

FilterConfig FilterConfig::small_default() {
  FilterConfig f;
  f.split_train = 0.75;
  f.split_val = 0.125;
  f.split_test = 0.125;
  return f;
}

ojson FilterConfig::to_json() const {
  ojson j;
#define X(f) j[#f] = f;
  FILTER_FIELDS(X)
#undef X
  return j;
}

FilterConfig FilterConfig::from_json(const ojson& j) {
  FilterConfig c;
  static const std::set<std::string> known = {
#define X(f) #f,
      FILTER_FIELDS(X)
#undef X
  };
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) throw std::invalid_argument("unknown filter option '" + it.key() + "'");
#define X(f) \
  if (j.contains(#f)) j.at(#f).get_to(c.f);
  FILTER_FIELDS(X)
#undef X
  return c;
}

std::string FilterConfig::hash() const {
  return H({"steptp.filter/1", canonical_json(to_json()), std::to_string(kPromptVersion)});
}

namespace {

// The options of a parsed config object into `gen` and `filter`. Throws std::invalid_argument (unknown section or
// option) or a JSON library error (a mistyped value).
void apply_config(const ojson& j, GenConfig& gen, FilterConfig& filter) {
  if (!j.is_object()) throw std::invalid_argument("not a JSON object");
  if (j.contains("gen") || j.contains("filter")) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "gen" && it.key() != "filter") throw std::invalid_argument("unknown section '" + it.key() + "'");
    if (j.contains("gen")) gen = GenConfig::from_json(j["gen"]);
    if (j.contains("filter")) filter = FilterConfig::from_json(j["filter"]);
    return;
  }
  ojson g = ojson::object(), f = ojson::object();
  ojson gk = GenConfig{}.to_json(), fk = FilterConfig{}.to_json();
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (gk.contains(it.key())) g[it.key()] = it.value();
    else if (fk.contains(it.key())) f[it.key()] = it.value();
    else throw std::invalid_argument("unknown option '" + it.key() + "'");
  }
  gen = GenConfig::from_json(g);
  filter = FilterConfig::from_json(f);
}

}  // namespace

void load_config_file(const std::string& path, GenConfig& gen, FilterConfig& filter) {
  std::string text;
  try {
    text = ir::read_file(path);
  } catch (const ir::LeirError& e) {  // E108 unreadable, E107 over the read limit
    throw DatasetDirError(Code::D011, path, e.diag().message);
  }
  try {
    apply_config(ojson::parse(text), gen, filter);
  } catch (const ojson::exception& e) {  // parse_error, 406 for a number like 1e999, a mistyped value
    throw DatasetDirError(Code::D011, path, e.what());
  } catch (const std::invalid_argument& e) {
    throw DatasetDirError(Code::D011, path, e.what());
  }
}

}  // namespace steptp::dataset
