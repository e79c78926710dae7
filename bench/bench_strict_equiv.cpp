// What the strict stage of the eval and search equivalence gates (step/strict_equiv.hpp) adds to S5, on a
// dataset's real workloads (figures in bench/RESULTS.md, "Strict equivalence stage"):
//   false rejections  every record's before -> after step (all legitimate: the generator verified them) through the
//                     strict stage, as eval grades a gold answer; goal 0 (the seconds include the strict draws'
//                     reference runs of each before program, which eval makes once per root);
//   mutants           each distinct before program of the dataset, 3 seeds of each semantic mutation of the fuzzer
//                     (fuzz/mutate.hpp: off-by-one index, swapped operands, dropped init, changed literal, shortened
//                     loop, removed statement, zeroed output) graded as eval grades an answer: S5 on the
//                     "eval-equiv" draws (the anchor: DATASET.md §8 gate 4), then the strict stage. Rows: mutants S5
//                     rejects, mutants only the strict stage rejects (wrong answers S5 would have passed), for
//                     comparison those the full checker of `steptp equiv` (less S) rejects, mutants both accept
//                     (truly equivalent ones among them: a removed dead statement, say), and seconds.
// Usage: bench_strict_equiv [DATASET_DIR=out/default [RECORD_LIMIT=0 (all)]]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "base/allocator.hpp"
#include "base/hash.hpp"
#include "base/json_text.hpp"
#include "step/equiv.hpp"
#include "step/strict_equiv.hpp"
#include "equiv/equivalence.hpp"
#include "fuzz/mutate.hpp"
#include "ir/printer.hpp"
#include "ir/task.hpp"

using namespace steptp;
using core::ojson;
namespace fs = std::filesystem;

namespace {

constexpr int kMutantsPerKind = 3;  // mutation seeds per kind and before program (duplicate mutants counted once)

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

ir::Task task_of(const ojson& r, const std::string& leir) {
  ojson t{{"workload", r["workload"]}, {"suite", r["suite"]}, {"known", r["before"]["known"]}, {"leir", leir}};
  return ir::parse_task(t.dump());
}

}  // namespace

int main(int argc, char** argv) {
  core::keep_freed_memory();
  const std::string data = argc > 1 ? argv[1] : "out/default";
  const long limit = argc > 2 ? std::atol(argv[2]) : 0;
  const std::string archive = data + "/archive/all.jsonl";
  if (!fs::exists(archive)) {
    std::printf("bench_strict_equiv: skipped, no dataset at %s (run `make run` first, or pass DATASET_DIR)\n", data.c_str());
    return 0;
  }
  const dataset::StrictConfig strict;
  const std::uint64_t seed = 20260525;
  std::ifstream in(archive);
  std::string line;
  long records = 0, false_rejections = 0, skipped = 0;
  double legit_s = 0;
  long tasks = 0, mutants = 0, s5_rejected = 0, strict_only = 0, both_accept = 0, strict_skipped = 0;
  long cli_rejected = 0;
  double s5_s = 0, strict_s = 0, cli_s = 0;
  std::set<std::string> distinct;  // mutants, by printed program
  // the strict draws' reference outputs of each before program, computed once (eval::TaskContext caches them so)
  std::map<std::string, std::unique_ptr<dataset::Reference>> strict_refs;
  dataset::EquivConfig ec;
  ec.stream = "eval-equiv";
  ec.master_seed = seed;
  const dataset::EquivConfig draws = dataset::strict_draws(ec);
  auto strict_ref = [&](const ir::Task& before, const std::string& key) -> const dataset::Reference* {
    auto& slot = strict_refs[ir::print_program(before.program)];
    if (!slot) {
      try {
        slot = std::make_unique<dataset::Reference>(dataset::make_reference(before, key, draws));
      } catch (const std::exception&) {
        return nullptr;
      }
    }
    return slot.get();
  };
  std::set<std::string> seen;
  while (std::getline(in, line) && (limit == 0 || records < limit)) {
    const ojson r = ojson::parse(line);
    const ir::Task before = task_of(r, r["before"]["leir"].get<std::string>());
    const ir::Task after = task_of(r, r["after"]["leir"].get<std::string>());
    const std::string key = r["task_id"].get<std::string>();
    ++records;
    auto t0 = std::chrono::steady_clock::now();
    const dataset::StrictOutcome o = dataset::strict_check(before, strict_ref(before, key), after, draws, key, strict);
    legit_s += since(t0);
    if (!o.ran) ++skipped;
    if (!o.ok) {
      ++false_rejections;
      std::printf("false rejection: record %s (%s, %s): %s: %s\n", r["record_id"].get<std::string>().c_str(),
                  r["unit"].get<std::string>().c_str(), r["params"]["candidate"].get<std::string>().c_str(),
                  o.code.c_str(), o.detail.substr(0, 240).c_str());
    }
    if (!seen.insert(r["before"]["leir"].get<std::string>()).second) continue;
    ++tasks;
    t0 = std::chrono::steady_clock::now();
    const dataset::Reference ref = dataset::make_reference(before, key, ec);
    s5_s += since(t0);
    for (int rep = 0; rep < kMutantsPerKind; ++rep)
    for (fuzz::MutationKind k : fuzz::kAllMutations) {
      const auto m = fuzz::mutate(before, k, core::derive(seed, "bench-mutant", {key, std::to_string(rep)}) + std::uint64_t(k));
      if (!m || !distinct.insert(ir::print_program(m->task.program)).second) continue;
      ++mutants;
      t0 = std::chrono::steady_clock::now();
      const bool s5_ok = dataset::check_against(m->task, ref, 'R', ec).ok;
      s5_s += since(t0);
      if (!s5_ok) {
        ++s5_rejected;
        continue;
      }
      t0 = std::chrono::steady_clock::now();
      const dataset::StrictOutcome so = dataset::strict_check(before, strict_ref(before, key), m->task, draws, key, strict);
      strict_s += since(t0);
      if (!so.ran) ++strict_skipped;
      // for comparison: the checker of `steptp equiv` (3 seeds x N, U, W, K and its further draws), less S
      const equiv::Options& cli = strict.full;  // seeds 0, 1, 2
      t0 = std::chrono::steady_clock::now();
      const bool cli_ok = equiv::check_equivalence(before, m->task, cli).equivalent;
      cli_s += since(t0);
      cli_rejected += !cli_ok;
      if (so.ok && !cli_ok)
        std::printf("steptp equiv only: %s %s at %s\n", r["unit"].get<std::string>().c_str(),
                    std::string(fuzz::mutation_name(k)).c_str(), m->site.c_str());
      if (so.ok) {
        ++both_accept;
      } else {
        ++strict_only;
        std::printf("strict only: %s %s at %s: %s\n", r["unit"].get<std::string>().c_str(),
                    std::string(fuzz::mutation_name(k)).c_str(), m->site.c_str(), so.detail.substr(0, 200).c_str());
      }
    }
    std::fflush(stdout);
  }
  std::printf("\ndataset %s: %ld records, %ld distinct before programs\n", data.c_str(), records, tasks);
  std::printf("| check | count | seconds |\n|---|---:|---:|\n");
  std::printf("| records through the strict stage | %ld | %.1f |\n", records, legit_s);
  std::printf("| of them, false rejections | %ld | |\n", false_rejections);
  std::printf("| of them, skipped (over budget or root fails) | %ld | |\n", skipped);
  std::printf("| mutants of the before programs | %ld | |\n", mutants);
  std::printf("| rejected by S5 (anchor) | %ld | %.1f |\n", s5_rejected, s5_s);
  std::printf("| passed S5, rejected by the strict stage | %ld | %.1f |\n", strict_only, strict_s);
  std::printf("| passed S5, rejected by `steptp equiv`'s checker less S (for comparison) | %ld | %.1f |\n",
              cli_rejected, cli_s);
  std::printf("| passed both (equivalent or undetected) | %ld | |\n", both_accept);
  std::printf("| of those, strict stage skipped | %ld | |\n", strict_skipped);
  return 0;
}
