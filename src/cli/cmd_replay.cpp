// `steptp replay PATH.json [--measure [--repeats N] [--threads T] [--fp-contract on|off] [--no-baseline]]
// [-o FINAL.json]`: rebuilds the program of a step path file (search/step_path.hpp) by applying its candidates in
// order, re-verifies the result against the root with the search's equivalence gate (S5 on stream "search-equiv",
// then the strict stage; eval/grader.hpp) and, with --measure, checks the compiled result against the interpreter
// and times root and result paired (ABBA, as the search does) beside the library baseline (at OpenBLAS's best core,
// runtime/best_core.hpp). Prints one JSON object on stdout.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "base/text.hpp"
#include "cli/command.hpp"
#include "cli/grade_options.hpp"
#include "eval/grader.hpp"
#include "ir/printer.hpp"
#include "ir/canon.hpp"
#include "runtime/best_core.hpp"
#include "runtime/lower_check.hpp"
#include "runtime/measure.hpp"
#include "search/step_path.hpp"
#include "step/config.hpp"
#include "step/timing.hpp"

namespace steptp::cli {
namespace {

using core::ojson;

struct ReplayOpts {
  std::string file, out;
  bool measure = false, baseline = true, strict = true;
  int repeats = 15, threads = 1;
  bool fp_contract = true;
};

/// The search's gate for the replayed program against its root (DATASET.md §9.1): equivalence always, the paired
/// measurement only with --measure.
eval::ProgramGrade grade_path(const ReplayOpts& o, const search::StepPath& p, const ir::Task& parent,
                              const ir::Task& after, dataset::Timer* timer) {
  eval::GradeConfig gc;
  gc.master_seed = dataset::GenConfig{}.master_seed;
  gc.measure = o.measure;
  gc.equiv_stream = "search-equiv";
  gc.recheck_faster = false;
  gc.strict.enabled = o.strict;
  eval::Grader grader(gc, timer, nullptr);
  eval::TaskContext root_ctx(p.root), parent_ctx(parent);
  const std::string strategy = p.steps.empty() ? "" : p.steps.back().strategy;
  return grader.grade(parent_ctx, root_ctx, {strategy, ir::print_program(after.program)});
}

/// The kernel compiled with or without contraction against the typed interpreter on one seeded draw
/// (runtime::check_lowering).
ojson check_compiled(const ir::Task& after, bool fp_contract) {
  runtime::LowerCheckOptions lo;
  lo.seeds = {0};
  lo.compile = runtime::kernel_compile_options(fp_contract);
  std::cerr << "replay: checking the compiled result" << (fp_contract ? " (contracted)" : "")
            << " against the interpreter\n";
  return ojson::parse(runtime::check_lowering(after, runtime::LowerTarget::C, lo).to_json());
}

/// --measure: contraction is used only where the dtype tolerance allows it, that is where the contracted kernel
/// passes the check; otherwise the kernels are timed uncontracted and `fp_contract_refused` says why. Returns
/// whether to contract; fills out["lowering_check"] (of the kernel that is timed).
bool decide_contraction(const ir::Task& after, const ReplayOpts& o, ojson& out) {
  out["lowering_check"] = check_compiled(after, o.fp_contract);
  if (!o.fp_contract || out["lowering_check"]["ok"].get<bool>()) return o.fp_contract;
  out["fp_contract_refused"] = out["lowering_check"]["message"];
  out["lowering_check"] = check_compiled(after, false);
  return false;
}

int run_replay(const ReplayOpts& o) {
  const search::StepPath p = search::read_step_path(o.file);
  const auto steps = search::replay_steps(p, o.file);
  ojson out{{"path", o.file}, {"workload", p.workload}, {"params", p.params}, {"steps", ojson::array()}};
  for (std::size_t k = 0; k < steps.size(); ++k)
    out["steps"].push_back({{"strategy", p.steps[k].strategy}, {"candidate", p.steps[k].candidate},
                            {"class", std::string(1, steps[k].cls)}});
  out["class"] = std::string(1, search::path_class(steps));
  const ir::Task& after = steps.empty() ? p.root : steps.back().after;
  out["leir"] = ir::print_program(after.program);
  dataset::GenConfig gen;
  gen.repeats = o.repeats;
  gen.threads = o.threads;
  if (o.measure) gen.fp_contract = decide_contraction(after, o, out);
  std::unique_ptr<dataset::Timer> timer;
  if (o.measure) timer = std::make_unique<dataset::Timer>(gen, nullptr);
  std::cerr << "replay: " << core::terminal_safe(p.workload) << ": " << steps.size() << " step(s) applied; verifying"
            << (o.measure ? " and timing" : "") << " against the root\n";
  eval::ProgramGrade g;
  if (steps.empty()) {  // the root itself: nothing to verify; --measure times it against itself
    g.equivalent = true;
    if (timer) {
      const dataset::TimedProgram tr{&p.root, core::prog_key(p.root, timer->compile_flags())};
      try {
        g.measurement = timer->measure(tr, tr, nullptr);
      } catch (const std::exception& e) {
        g.detail = e.what();
      }
    }
  } else {
    const ir::Task& parent = steps.size() > 1 ? steps[steps.size() - 2].after : p.root;
    g = grade_path(o, p, parent, after, timer.get());
    out["grade"] = g.to_json();
    if (!o.measure && g.reason == "not_measured")  // the faster gate was not asked for
      for (const char* k : {"faster", "failed_gate", "reason"}) out["grade"].erase(k);
  }
  out["equivalent"] = g.equivalent;
  bool ok = g.equivalent;
  if (!o.out.empty() && g.equivalent) ir::write_file_atomic(o.out, ir::task_to_json(after) + "\n");
  if (o.measure) {
    ok = ok && g.measurement.is_object();
    if (!g.measurement.is_object() && !g.detail.empty()) out["measure_error"] = g.detail;
    if (g.measurement.is_object()) {
      const ojson& m = g.measurement;
      out["root_ns"] = m["before"]["median_ns"];
      out["result_ns"] = m["after"]["median_ns"];
      out["speedup"] = m["speedup"];
      out["noisy"] = m["noisy"];
    }
    out["fp_contract"] = gen.fp_contract;
    ok = ok && out["lowering_check"]["ok"].get<bool>();
    if (o.baseline) {
      out["baseline"] = runtime::time_library_baseline_best(p.workload, p.root, o.repeats, o.threads);
      out["library"] = runtime::baseline_library();
      const ojson& b = out["baseline"];
      if (b.is_object() && b.contains("median_ns") && out.contains("result_ns") && out["result_ns"].is_number())
        out["speedup_vs_baseline"] = b["median_ns"].get<double>() / out["result_ns"].get<double>();
    }
  }
  std::cout << core::dump_py(out) << "\n";
  if (!g.equivalent)
    std::cerr << "steptp: replay: the result is not equivalent to the root: " << g.reason << " "
              << core::terminal_safe(g.detail) << "\n";
  else if (out.contains("speedup") && out["speedup"].is_number())
    std::cerr << "replay: " << core::terminal_safe(p.workload) << ": equivalent; "
              << fmt::format("{:.2f}x", out["speedup"].get<double>()) << " over the root\n";
  else
    std::cerr << "replay: " << core::terminal_safe(p.workload) << ": equivalent\n";
  return ok ? 0 : 1;
}

const CommandRegistrar reg("47-replay", [](CLI::App& app) -> RunFn {
  auto o = std::make_shared<ReplayOpts>();
  auto* c = app.add_subcommand("replay", "Rebuild a step path's program (a root and candidate ids, as `search` writes "
                                         "to OUT/paths/), re-verify it against the root and optionally time it");
  c->footer("Path file: {\"workload\": NAME, \"params\": {...}, \"dtype\": \"f32\"} or {\"task\": {...}}, and "
            "\"steps\": [{\"strategy\": S, \"candidate\": ID}, ...] (docs/commands.md, replay).\n"
            "Exit status: 0 replayed and equivalent (and timed, with --measure); 1 not equivalent, the "
            "timing failed, or the compiled result does not match the interpreter; 2 bad input (S005 a bad path "
            "file, S001/S002/S004 a step that does not apply, LEIR-E codes of the root, E109 an unknown workload, "
            "E107/E108 an unreadable path file, E115/E116 the -o path); 70 an internal error.");
  c->add_option("path", o->file, "step path file (JSON object)")->required();
  auto* measure =
      c->add_flag("--measure", o->measure, "time the root and the result paired (ABBA), and the library baseline");
  c->add_option("--repeats", o->repeats, "timing repeats")->capture_default_str()->check(CLI::Range(1, 100000))
      ->needs(measure);
  c->add_option("--threads", o->threads, "threads of the kernels and of the library baseline")
      ->capture_default_str()->check(CLI::Range(1, 4096))->needs(measure);
  add_fp_contract_option(c, o->fp_contract,
                         "compile the kernels with fused multiply-add contraction, as `search` does, where the "
                         "contracted result still matches the interpreter")
      ->needs(measure);
  auto no_baseline = std::make_shared<bool>(false);
  c->add_flag("--no-baseline", *no_baseline, "do not time the library baseline")->needs(measure);
  const auto no_strict = add_no_strict_equivalence_flag(c);
  c->add_option("-o,--output", o->out, "write the resulting task here once it is verified equivalent to the "
                                       "root (atomically; never replaces a link, FIFO, directory or device: E115)");
  return [o, no_baseline, no_strict] {
    o->baseline = !*no_baseline;
    o->strict = !*no_strict;
    return run_replay(*o);
  };
});

}  // namespace
}  // namespace steptp::cli
