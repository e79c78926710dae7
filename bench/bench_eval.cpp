// Eval throughput benchmark (issue #10; figures in bench/RESULTS.md, "Evaluation"): graded answers per second of
// `steptp eval` with the replay policy on a dataset's test split, replaying the split's own answers (gold replay,
// every assistant message once), one worker (concurrency 1 = one core), fresh cache per run. Rows:
//   no-measure          gates parsed -> equivalent, strategy_consistent and reasoning_verified (the goal row; run
//                       twice, the first run also paying the process's cold start);
//   no-measure, S5 only the same with --no-strict-equivalence: the equivalent gate without its strict stage
//                       (step/strict_equiv.hpp), as issue #10 measured it;
//   no-measure, random  the random policy's answers (no think block: strategy_consistent scans the candidates);
//   fixed timer         plus the C compile of every answer and the latency model;
//   real timer          plus S7 timing of every equivalent answer against its before program;
//   anchor: audit       `steptp audit` of the whole dataset on one thread: the generator's own re-check of every
//                       record (re-apply, re-validate, equivalence on the S5 draws, reasoning checker), per record.
// Usage: bench_eval [DATASET_DIR=out/default [real_timer_limit=8 prompts]]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/allocator.hpp"
#include "dataset/audit.hpp"
#include "eval/eval_run.hpp"

using namespace steptp;
namespace fs = std::filesystem;

namespace {

struct Row {
  double seconds = 0;
  std::int64_t answers = 0, prompts = 0;
};

Row run(eval::EvalOptions o, const std::string& tag) {
  o.out_dir = (fs::temp_directory_path() / ("steptp-bench-eval-" + tag)).string();
  fs::remove_all(o.out_dir);
  o.progress = false;
  o.concurrency = 1;
  auto t0 = std::chrono::steady_clock::now();
  eval::EvalResult r = eval::run_eval(o);
  Row row;
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row.answers = r.summary["single"]["answers"].get<std::int64_t>() + r.summary["multi"]["answers"].get<std::int64_t>();
  row.prompts = r.summary["prompts"].get<std::int64_t>();
  fs::remove_all(o.out_dir);
  return row;
}

void print(const char* name, const Row& r) {
  std::printf("%-24s %8lld %8lld %10.2f %12.2f %12.3f\n", name, (long long)r.prompts, (long long)r.answers, r.seconds,
              r.answers / r.seconds, r.seconds / std::max<std::int64_t>(1, r.answers));
}

}  // namespace

int main(int argc, char** argv) {
  core::keep_freed_memory();  // as the steptp CLI does
  const std::string data = argc > 1 ? argv[1] : "out/default";
  if (!fs::exists(data + "/manifest.json")) {
    std::printf("bench_eval: skipped, no dataset at %s (run `make run` first, or pass DATASET_DIR)\n", data.c_str());
    return 0;
  }
  const int limit = argc > 2 ? std::atoi(argv[2]) : 8;
  const std::string replay = (fs::temp_directory_path() / "steptp-bench-eval-gold.jsonl").string();
  std::size_t max_replies = 1;
  {
    std::string text;
    for (const auto& l : eval::gold_replay(data, "test")) {
      text += core::dump_py(l) + "\n";
      max_replies = std::max(max_replies, l["replies"].size());
    }
    ir::write_file_atomic(replay, text);
  }
  eval::EvalOptions o;
  o.data_dir = data;
  o.split = "test";
  o.policy = "replay";
  o.replay_file = replay;
  o.samples = int(max_replies);
  std::printf("dataset %s, test split, gold replay (%zu samples per prompt at most), 1 worker\n", data.c_str(), max_replies);
  std::printf("%-24s %8s %8s %10s %12s %12s\n", "setting", "prompts", "answers", "wall s", "answers/s", "s/answer");
  o.measure = false;
  // the first run also pays for the process's first touch of its heap and the dataset's files in the page cache;
  // the second is the steady state a long eval runs in
  print("no-measure, first run", run(o, "nm0"));
  print("no-measure", run(o, "nm"));
  eval::EvalOptions s5 = o;
  s5.grade.strict.enabled = false;  // the issue #10 configuration: S5 alone (DATASET.md §8)
  print("no-measure, S5 only", run(s5, "s5"));
  eval::EvalOptions rnd = o;
  rnd.policy = "random";
  rnd.samples = 4;
  print("no-measure, random", run(rnd, "rnd"));
  o.measure = true;
  o.timer = "fixed";
  print("fixed timer", run(o, "fixed"));
  o.timer = "real";
  o.limit = limit;
  print("real timer", run(o, "real"));
  fs::remove(replay);
  dataset::AuditOptions a;
  a.dir = data;
  auto t0 = std::chrono::steady_clock::now();
  dataset::AuditReport ar = dataset::run_audit(a);
  Row anchor;
  anchor.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  anchor.answers = ar.equivalence_checked;
  print("anchor: audit (records)", anchor);
  return 0;
}
