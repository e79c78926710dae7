// Strategy throughput (issue #5) over every built-in workload, one benchmark per registered strategy:
//  - BM_DefaultShapes: enumerate + apply (apply = site re-check, fresh names, new AST, validator, facts) at the
//    workloads' default shapes, without running anything; items = applied candidates.
//  - BM_SmallShapesVerified: enumerate + apply + lower_c + check_equivalence (one seed, class E bit-exact) at the
//    workloads' small shapes; items = verified candidates.
//  - BM_EnumerateOnly: enumerate at default shapes; items = tasks.
//  - BM_CorpusAndWorkloads (issue #12's figure): the reference corpus tasks as written (those that validate) plus
//    every workload at its default shape; full enumeration (sites with indexed parameter spaces, as generate
//    uses them) + apply of <= 20 candidates per (strategy, task), built from their indices;
//    items = applied candidates. Each pass runs in a new thread, so per-thread memos (isl answers, enumerations)
//    start empty as in a fresh process, and is timed by that thread's CPU clock (manual time); passes under
//    0.5 s are repeated and averaged. Counters: max_enum_ms (the slowest single task's full enumeration, thread
//    CPU time), mean_enum_us (per task) and tasks_over_100ms, from one more cold, untimed pass that reads the
//    clock around each enumeration. The task sets are built before the timed loop.
//  - BM_AlgebraicFamily (issue #13's figure): every algebraic strategy, enumerate + apply of EVERY candidate, over
//    every workload at its default shape; counters: ms_per_task (thread CPU time per task, the family's goal is
//    < 20 ms on average) and one <name>_ms_per_task counter per strategy.
// Candidates applied per (strategy, task) are a deterministic sample (sample_indices, seed = task index) of at
// most 20 (default shapes) or 3 (small shapes, verified), as in the property test.
#include <benchmark/benchmark.h>

#include <ctime>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "frontend/workloads.hpp"
#include "equiv/equivalence.hpp"
#include "ir/task.hpp"
#include "ir/validate.hpp"
#include "lower/lower.hpp"
#include "strategies/registry.hpp"
#include "strategies/sample.hpp"

namespace {
namespace fe = steptp::frontend;
namespace st = steptp::strategy;

std::vector<steptp::ir::Task> emit_all(bool small) {
  std::vector<steptp::ir::Task> v;
  for (const auto& w : fe::workloads()) {
    try {
      v.push_back(fe::emit(w, small ? fe::small_params(w) : fe::default_params(w), steptp::ir::DType::F32));
    } catch (const std::exception&) {
    }
  }
  return v;
}
const std::vector<steptp::ir::Task>& default_tasks() {
  static const auto v = emit_all(false);
  return v;
}
const std::vector<steptp::ir::Task>& small_tasks() {
  static const auto v = emit_all(true);
  return v;
}

const std::vector<steptp::ir::Task>& corpus_and_default_tasks() {
  static const auto v = [] {
    std::vector<steptp::ir::Task> out;
    for (auto& te : steptp::ir::read_tasks_jsonl(std::string(STEPTP_SHARED_DIR) + "/leir-reference/corpus.jsonl"))
      if (te.ok && steptp::ir::analyze(te.task).ok()) out.push_back(std::move(te.task));
    for (const auto& t : default_tasks()) out.push_back(t);
    return out;
  }();
  return v;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The candidates of `sites` at the given flat indices (site order, then each site's parameter order), built from
// the indexed parameter spaces without materialising the others (as generate does; enumerate_candidates would
// build every tuple of, e.g., tensor_split's 2.9 M split points).
std::vector<st::Candidate> candidates_at(const st::StrategyInfo& s, const std::vector<st::Site>& sites,
                                         const std::vector<std::size_t>& flat) {
  std::vector<st::Candidate> out;
  std::size_t base = 0, si = 0;
  for (std::size_t k : flat) {
    while (si < sites.size() && k >= base + sites[si].params.size()) base += sites[si++].params.size();
    if (si == sites.size()) break;
    out.push_back(st::Candidate{std::string(s.name), sites[si].ref, sites[si].params.at(k - base)});
  }
  return out;
}

/// Runs f() in a new thread and returns that thread's CPU seconds. A new thread starts with empty per-thread
/// memos (isl answers, enumerations, typed tasks), so every pass pays them as a fresh process would.
template <class F>
double cpu_seconds_in_fresh_thread(F&& f) {
  double cpu = 0;
  std::thread th([&] {
    const double t0 = thread_cpu_seconds();
    f();
    cpu = thread_cpu_seconds() - t0;
  });
  th.join();
  return cpu;
}

void BM_CorpusAndWorkloads(benchmark::State& state) {
  const auto& s = st::registry()[static_cast<std::size_t>(state.range(0))];
  const auto& tasks = corpus_and_default_tasks();
  std::int64_t applied = 0, over = 0, enumerated = 0;
  double max_enum = 0, sum_enum = 0;
  std::string slowest;
  // The timed passes: enumerate + apply over every task, each pass in a fresh thread (cold memos), timed by that
  // thread's CPU clock, with no clock read per task (one is a ~1.3 µs system call on a KVM guest, more than a
  // whole enumeration of most tasks). Short passes are repeated (MinTime) and averaged.
  for (auto _ : state) {
    state.SetIterationTime(cpu_seconds_in_fresh_thread([&] {
      for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
        const auto& t = tasks[ti];
        const auto sites = s.enumerate(t);
        std::size_t n = 0;
        for (const auto& site : sites) n += site.params.size();
        for (const auto& c : candidates_at(s, sites, st::sample_indices(n, 20, ti))) {
          benchmark::DoNotOptimize(s.apply(t, c).facts.size());
          ++applied;
        }
      }
    }));
  }
  // Per-task enumeration times, untimed: one more cold pass with a clock around each enumeration.
  cpu_seconds_in_fresh_thread([&] {
    for (std::size_t ti = 0; ti < tasks.size(); ++ti) {
      const auto& t = tasks[ti];
      const double t0 = thread_cpu_seconds();
      const auto sites = s.enumerate(t);
      const double dt = thread_cpu_seconds() - t0;
      for (const auto& site : sites) enumerated += static_cast<std::int64_t>(site.params.size());
      sum_enum += dt;
      if (dt > 0.1) ++over;
      if (dt > max_enum) max_enum = dt, slowest = t.workload;
    }
  });
  state.SetLabel(std::string(s.name) + " (slowest enumeration: " + slowest + ")");
  state.SetItemsProcessed(applied);
  state.counters["enumerated"] = static_cast<double>(enumerated);
  state.counters["max_enum_ms"] = 1e3 * max_enum;
  state.counters["mean_enum_us"] = 1e6 * sum_enum / static_cast<double>(tasks.size());
  state.counters["tasks_over_100ms"] = static_cast<double>(over);
  state.counters["tasks"] = static_cast<double>(tasks.size());
}

void BM_DefaultShapes(benchmark::State& state) {
  const auto& s = st::registry()[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(s.name));
  std::int64_t applied = 0;
  (void)default_tasks();  // emitted once, outside the timed loop
  for (auto _ : state)
    for (std::size_t ti = 0; ti < default_tasks().size(); ++ti) {
      const auto& t = default_tasks()[ti];
      auto c = st::enumerate_candidates(s, t);
      for (std::size_t i : st::sample_indices(c.size(), 20, ti)) {
        benchmark::DoNotOptimize(s.apply(t, c[i]).facts.size());
        ++applied;
      }
    }
  state.SetItemsProcessed(applied);
}

void BM_SmallShapesVerified(benchmark::State& state) {
  const auto& s = st::registry()[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(s.name));
  std::int64_t verified = 0, failed = 0;
  (void)small_tasks();  // emitted once, outside the timed loop
  for (auto _ : state)
    for (std::size_t ti = 0; ti < small_tasks().size(); ++ti) {
      const auto& t = small_tasks()[ti];
      auto c = st::enumerate_candidates(s, t);
      for (std::size_t i : st::sample_indices(c.size(), 3, ti)) {
        auto a = s.apply(t, c[i]);
        benchmark::DoNotOptimize(steptp::lower::lower_c(a.task).size());
        steptp::equiv::Options eo;
        eo.seeds = {0};
        eo.exact = a.cls == st::Exactness::Exact;
        if (steptp::equiv::check_equivalence(t, a.task, eo).equivalent) ++verified; else ++failed;
      }
    }
  state.SetItemsProcessed(verified);
  state.counters["failed"] = static_cast<double>(failed);
}

void BM_EnumerateOnly(benchmark::State& state) {
  const auto& s = st::registry()[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(std::string(s.name));
  std::int64_t n = 0;
  (void)default_tasks();  // emitted once, outside the timed loop
  for (auto _ : state)
    for (const auto& t : default_tasks()) n += static_cast<std::int64_t>(s.enumerate(t).size());
  state.SetItemsProcessed(static_cast<std::int64_t>(default_tasks().size()) * state.iterations());
  state.counters["sites"] = static_cast<double>(n);
}

const int kLast = static_cast<int>(st::registry().size()) - 1;
void BM_AlgebraicFamily(benchmark::State& state) {
  const auto& tasks = default_tasks();
  std::map<std::string, double> per;
  std::int64_t applied = 0;
  double total = 0;
  for (auto _ : state)
    for (const auto& s : st::registry()) {
      if (s.family != st::Family::Algebraic) continue;
      for (const auto& t : tasks) {
        const double t0 = thread_cpu_seconds();
        for (const auto& c : st::enumerate_candidates(s, t)) {
          benchmark::DoNotOptimize(s.apply(t, c).facts.size());
          ++applied;
        }
        const double dt = thread_cpu_seconds() - t0;
        per[std::string(s.name)] += dt;
        total += dt;
      }
    }
  const double n = static_cast<double>(tasks.size() * state.iterations());
  state.SetItemsProcessed(applied);
  state.counters["tasks"] = static_cast<double>(tasks.size());
  state.counters["ms_per_task"] = 1e3 * total / n;
  for (const auto& [name, sec] : per) state.counters[name + "_ms_per_task"] = 1e3 * sec / n;
}

BENCHMARK(BM_AlgebraicFamily)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_CorpusAndWorkloads)->DenseRange(0, kLast)->Unit(benchmark::kMillisecond)->UseManualTime()->MinTime(0.5);
BENCHMARK(BM_DefaultShapes)->DenseRange(0, kLast)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_SmallShapesVerified)->DenseRange(0, kLast)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_EnumerateOnly)->DenseRange(0, kLast)->Unit(benchmark::kMillisecond)->Iterations(1);
}  // namespace

BENCHMARK_MAIN();
