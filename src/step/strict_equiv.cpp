#include "step/strict_equiv.hpp"
#include "base/error_codes.hpp"

#include <chrono>

#include <fmt/format.h>

#include "base/hash.hpp"
#include "equiv/equivalence.hpp"

namespace steptp::dataset {

ojson StrictOutcome::to_json() const {
  return ojson{{"ran", ran},   {"equivalent", ok},   {"skipped", skipped.empty() ? ojson(nullptr) : ojson(skipped)},
               {"code", code}, {"detail", detail}, {"seconds", seconds}};
}

EquivConfig strict_draws(const EquivConfig& s5) {
  EquivConfig c = s5;
  c.stream = s5.stream + "-strict";
  c.dists = {equiv::Distribution::Wide, equiv::Distribution::Wide, equiv::Distribution::Literal,
             equiv::Distribution::Literal};
  return c;
}

namespace {

/// Step 2: equiv::check_equivalence with `options` (StrictConfig::full) on seeds derived from the task.
equiv::Result full_check(const ir::Task& root, const ir::Task& after, const EquivConfig& c,
                         const std::string& task_key, const equiv::Options& options) {
  equiv::Options eo = options;
  const std::uint64_t s = core::derive(c.master_seed, c.stream, {task_key, "full"}) & ((std::uint64_t{1} << 40) - 1);
  eo.seeds = {s, s + 1, s + 2};
  return equiv::check_equivalence(root, after, eo);
}

}  // namespace

StrictOutcome strict_check(const ir::Task& root, const Reference* ref, const ir::Task& after,
                           const EquivConfig& cfg_draws, const std::string& task_key, const StrictConfig& cfg) {
  StrictOutcome o;
  if (!cfg.enabled) {
    o.skipped = "disabled (--no-strict-equivalence)";
    return o;
  }
  if (!ref) {
    o.skipped = "the root does not run on the strict draws";
    return o;
  }
  const auto answer = static_cast<std::uint64_t>(statement_instances(after));
  const std::uint64_t draws = cfg_draws.dists.size();
  if (draws > 0 && answer > cfg.max_executions / draws) {
    o.skipped = fmt::format("{} draws of {} statement instances exceed the strict stage's budget of {}", draws, answer,
                            cfg.max_executions);
    return o;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto done = [&] { o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  o.ran = true;
  const EquivOutcome e = check_against(after, *ref, 'R', cfg_draws);
  if (!e.ok) {
    o.ok = false;
    o.code = e.reason;
    o.detail = "wide and literal-directed draws: " + e.detail;
    done();
    return o;
  }
  o.detail = fmt::format("{} wide and literal-directed draws", draws);
  if (static_cast<std::uint64_t>(statement_instances(root)) + answer <= kStrictFullCheckPerDraw) {
    const equiv::Result r = full_check(root, after, cfg_draws, task_key, cfg.full);
    if (!r.equivalent && r.code != code_text(Code::E502)) {  // E502: the root fails on a draw, inconclusive (LEIR.md §11 step 3)
      o.ok = false;
      o.code = r.code;
      o.detail = "steptp equiv's draws: " + r.message;
    } else {
      o.detail += r.equivalent ? "; steptp equiv's draws: " + r.message : "; steptp equiv's draws inconclusive";
    }
  }
  done();
  return o;
}

}  // namespace steptp::dataset
