// `steptp search` end to end: byte-identical reruns with --timer fixed, a search against a real local
// OpenAI-compatible server (tests/eval/chat_server.hpp) answering with legal programs, kill -9 then resume, and bad
// input (exit 2 with one line, or a per-task error and the run goes on).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <thread>

#include "../dataset/dataset_test_util.hpp"
#include "../eval/chat_server.hpp"
#include "base/json_text.hpp"
#include "step/prompt.hpp"
#include "ir/parser.hpp"
#include "ir/task.hpp"
#include "policy/random_policy.hpp"
#include "runtime/best_core.hpp"
#include "runtime/library_baseline.hpp"

namespace steptp::search {
namespace {
namespace fs = std::filesystem;
using dataset::dstest::run_cli;
using dataset::dstest::spawn_cli;
using dataset::dstest::temp_dir;
using ojson = core::ojson;

using dataset::dstest::slurp;
const auto& jsonl = dataset::dstest::read_json_lines;

const std::vector<std::string> kWorkloads{"Square_matrix_multiplication", "softmax", "GELU", "LayerNorm_last_dim"};

std::vector<std::string> fixed_args(const std::string& out, const std::string& algorithm = "mcts") {
  std::vector<std::string> a{"search", "--workloads"};
  a.insert(a.end(), kWorkloads.begin(), kWorkloads.end());
  for (const char* s : {"--small", "--policy", "random", "--timer", "fixed", "--proposals", "10", "--measurements", "5",
                        "--no-progress", "--algorithm"})
    a.push_back(s);
  a.push_back(algorithm);
  a.push_back("--out");
  a.push_back(out);
  return a;
}

// The library baseline runs at OpenBLAS's best core (issue #49): search starts its baseline child without
// OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE once the core OpenBLAS detects there passes the sgemm check, and says so.
TEST(SearchCli, LibraryBaselineRunsWithoutTheForcingVariables) {
  if (!runtime::cblas_available()) GTEST_SKIP() << "built without STEPTP_WITH_CBLAS";
  const std::string d = temp_dir("search-blas");
  std::map<std::string, std::string> saved;
  for (const char* v : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"})
    if (const char* x = std::getenv(v)) saved[v] = x;
  setenv("OPENBLAS_CORETYPE", "Haswell", 1);
  setenv("OPENBLAS_L2_SIZE", "512", 1);
  const int rc = run_cli({"search", "--workloads", "Square_matrix_multiplication", "--small", "--policy", "random",
                          "--proposals", "2", "--measurements", "1", "--repeats", "3", "--no-progress", "--out",
                          d + "/o"},
                         d);
  for (const char* v : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    if (saved.count(v))
      setenv(v, saved[v].c_str(), 1);
    else
      unsetenv(v);
  }
  ASSERT_EQ(rc, 0) << slurp(d + "/log.txt");
  const auto summary = core::ojson::parse(slurp(d + "/o/summary.json"));
  const auto& lib = summary["library_baseline"];
  EXPECT_EQ(lib["dropped"]["OPENBLAS_CORETYPE"], "Haswell") << lib.dump();
  EXPECT_EQ(lib["dropped"]["OPENBLAS_L2_SIZE"], "512");
  // The child ran without the variable, or with the CPU's best core where OpenBLAS detected a weaker one (a guest
  // that hides its CPU model); never with the forced Haswell.
  if (lib.contains("forced")) {
    EXPECT_EQ(lib["library"]["OPENBLAS_CORETYPE"], lib["forced"]["OPENBLAS_CORETYPE"]) << lib.dump();
    EXPECT_EQ(lib["forced"]["OPENBLAS_CORETYPE"], runtime::openblas_core_for_cpu());
  } else {
    EXPECT_TRUE(lib["library"]["OPENBLAS_CORETYPE"].is_null()) << "the child still saw the variable";
  }
  EXPECT_GE(runtime::openblas_core_level(lib["library"]["openblas_core"].get<std::string>()),
            runtime::openblas_core_level(runtime::openblas_core_for_cpu()))
      << "the baseline ran a core below the CPU's vector ISA: " << lib.dump();
  EXPECT_TRUE(lib["library"]["OPENBLAS_L2_SIZE"].is_null());
  EXPECT_TRUE(lib["kept_reason"].is_null()) << lib.dump();
  EXPECT_GE(lib["core_check_max_rel_err"].get<double>(), 0.0);
  EXPECT_LE(lib["core_check_max_rel_err"].get<double>(), 1e-5);
  const auto results = jsonl(d + "/o/results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["baseline"]["routine"], "cblas_sgemm") << results[0].dump();
  EXPECT_GT(results[0]["baseline"]["median_ns"].get<double>(), 0.0);
  EXPECT_NE(slurp(d + "/o/summary.md").find("run without OPENBLAS_CORETYPE=Haswell, OPENBLAS_L2_SIZE=512"),
            std::string::npos);
  // the kernels were timed contracted (the search's default) and say so
  EXPECT_EQ(results[0]["fp_contract"], true);
  EXPECT_NE(summary["kernel_flags"].get<std::string>().find("-ffp-contract=fast"), std::string::npos);
  const std::string path = d + "/o/paths/001-Square_matrix_multiplication.json";
  EXPECT_EQ(ojson::parse(slurp(path))["found_by"]["fp_contract"], true);
  // replay --measure times the path the same way and checks the contracted kernel against the interpreter
  auto replay = [&](const std::string& extra) {
    const std::string cmd = std::string(STEPTP_BINARY) + " replay " + path + " --measure --repeats 3 " +
                            "--no-strict-equivalence " + extra + " >" + d + "/stdout.txt 2>>" + d + "/log.txt";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << slurp(d + "/log.txt");
    return ojson::parse(slurp(d + "/stdout.txt"));
  };
  const auto rp = replay("");
  EXPECT_EQ(rp["fp_contract"], true);
  EXPECT_EQ(rp["lowering_check"]["ok"], true) << rp.dump();
  EXPECT_EQ(rp["lowering_check"]["runs"], 2);
  EXPECT_GT(rp["speedup_vs_baseline"].get<double>(), 0.0);
  const auto off = replay("--fp-contract off --no-baseline");
  EXPECT_EQ(off["fp_contract"], false);
  EXPECT_EQ(off["lowering_check"]["max_abs_err"], 0.0) << "uncontracted, the kernel rounds as the interpreter";
  fs::remove_all(d);
}

TEST(SearchCliSlow, SameSeedGivesByteIdenticalOutputs) {
  const std::string d = temp_dir("search-det");
  ASSERT_EQ(run_cli(fixed_args(d + "/a"), d), 0) << slurp(d + "/log.txt");
  ASSERT_EQ(run_cli(fixed_args(d + "/b"), d), 0) << slurp(d + "/log.txt");
  for (const char* f : {"results.jsonl", "proposals.jsonl", "transcripts.jsonl", "summary.json", "summary.md",
                        "measured.jsonl"})
    EXPECT_EQ(slurp(d + "/a/" + f), slurp(d + "/b/" + f)) << f;
  const auto results = jsonl(d + "/a/results.jsonl");
  ASSERT_EQ(results.size(), kWorkloads.size());
  // measured.jsonl: one line per measured node, the pair it was timed in (parent, or the root once confirmed)
  std::size_t measured_nodes = 0;
  for (const auto& r : results)
    for (const auto& n : r["nodes"]) measured_nodes += n["id"].get<int>() > 0 ? 1 : 0;
  const auto measured = jsonl(d + "/a/measured.jsonl");
  EXPECT_EQ(measured.size(), measured_nodes);
  for (const auto& m : measured) {
    const auto& r = results[std::size_t(std::find(kWorkloads.begin(), kWorkloads.end(), m["workload"]) - kWorkloads.begin())];
    const auto& node = r["nodes"][m["node"].get<std::size_t>()];
    EXPECT_TRUE(m["paired_with"] == node["parent"] || m["paired_with"] == 0) << m.dump();
    EXPECT_GT(m["measurement"]["after"]["median_ns"].get<double>(), 0);
    EXPECT_EQ(m["after"]["leir"].get<std::string>().empty(), false);
  }
  // ... which `steptp cost-model train` reads as training records
  ASSERT_EQ(run_cli({"cost-model", "train", d + "/a", "-o", d + "/cm.json", "--rounds", "5", "--holdout-frac", "0.5"}, d),
            0) << slurp(d + "/log.txt");
  EXPECT_EQ(ojson::parse(slurp(d + "/cm.json"))["train"]["measured_records"].get<std::size_t>(), measured.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    EXPECT_EQ(r["status"], "ok");
    const auto& b = r["budget"];
    EXPECT_TRUE(b["proposals"]["used"] == 10 || b["measurements"]["used"] == 5) << b.dump();
    // OUT/paths/NNN-WORKLOAD.json replays (`steptp replay`) to the very program the search reported
    char name[512];
    std::snprintf(name, sizeof name, "/paths/%03zu-%s.json", i + 1, kWorkloads[i].c_str());
    EXPECT_EQ(slurp(d + "/a" + name), slurp(d + "/b" + name)) << name;
    const std::string replayed = d + "/replayed-" + std::to_string(i) + ".json";
    ASSERT_EQ(run_cli({"replay", d + "/a" + name, "--no-strict-equivalence", "-o", replayed}, d), 0)
        << slurp(d + "/log.txt");
    EXPECT_EQ(ojson::parse(slurp(replayed))["leir"], r["result"]["leir"]) << name;
  }
  // a rerun into the same directory takes every task from the search_results cache and writes the same bytes
  const std::string before = slurp(d + "/a/results.jsonl");
  ASSERT_EQ(run_cli(fixed_args(d + "/a"), d), 0);
  EXPECT_EQ(slurp(d + "/a/results.jsonl"), before);
  EXPECT_EQ(ojson::parse(slurp(d + "/a/run.json"))["resumed_tasks"].get<int>(), int(kWorkloads.size()));
  // another seed searches differently
  auto other = fixed_args(d + "/c");
  other.push_back("--seed");
  other.push_back("99");
  for (const char* s : {"--fp-contract", "off"}) other.push_back(s);
  ASSERT_EQ(run_cli(other, d), 0);
  EXPECT_NE(slurp(d + "/c/transcripts.jsonl"), slurp(d + "/a/transcripts.jsonl"));
  EXPECT_EQ(results[0]["fp_contract"], true);
  EXPECT_EQ(jsonl(d + "/c/results.jsonl")[0]["fp_contract"], false);
}

/// Answers each request with legal programs of the prompt's current program (the random policy behind a real
/// HTTP endpoint), except every fourth request, which gets a 500 (retried by the client).
TEST(SearchCliSlow, LlmPolicyAgainstALocalServerEndToEnd) {
  const std::string d = temp_dir("search-llm");
  ASSERT_EQ(run_cli({"workloads", "emit", "Square_matrix_multiplication", "--small", "-o", d + "/mm.jsonl"}, d), 0);
  const ir::Task root = ir::read_task_file(d + "/mm.jsonl");
  policy::RandomPolicy inner(5);
  evaltest::ChatServer srv([&](const nlohmann::json& req, int, int call) {
    if (call % 4 == 3) return evaltest::ScriptedReply(500, "overloaded");
    const std::string user = req["messages"][1]["content"];
    const auto a = user.find("Current program (LEIR):\n") + 24;
    ir::Task t = root;
    t.program = ir::parse_program(user.substr(a, user.find('\n', a) - a));
    policy::Prompt p;
    p.user = user;
    p.system = req["messages"][0]["content"];
    p.n = user.find("distinct transformed programs") != std::string::npos ? 2 : 1;
    p.task = &t;
    return evaltest::ScriptedReply(200, evaltest::completion_body(inner.reply(p, call).content));
  });
  const std::string out = d + "/out";
  std::vector<std::string> args{"search", "--tasks", d + "/mm.jsonl", "--policy", "llm", "--base-url", srv.base_url(),
                                "--model", "m", "--backoff", "0.01", "--timer", "fixed", "--algorithm", "mcts",
                                "--proposals", "8", "--measurements", "4", "--out", out, "--no-progress"};
  ASSERT_EQ(run_cli(args, d), 0) << slurp(d + "/log.txt");
  const auto r = jsonl(out + "/results.jsonl").at(0);
  EXPECT_EQ(r["status"], "ok");
  EXPECT_TRUE(r["result"].is_object());
  EXPECT_GE(r["llm"]["requests"].get<int>(), 1);
  EXPECT_GT(r["llm"]["completion_tokens"].get<int>(), 0);
  EXPECT_GE(r["outcomes"].value("accepted", 0), 1);
  const int asked = srv.requests();
  EXPECT_EQ(asked, r["llm"]["requests"].get<int>());  // every HTTP request, retries included
  // the tree's children name their strategies and, as strategy_consistent recovered them from the text, their
  // candidates; the result is never slower than the root
  int recovered = 0;
  for (const auto& n : r["nodes"])
    if (n["id"].get<int>() > 0) {
      EXPECT_FALSE(n["strategy"].get<std::string>().empty());
      recovered += n["candidate"].is_string();
    }
  EXPECT_GE(recovered, 1);
  EXPECT_GE(r["result"]["speedup"].get<double>(), 1.0);
  // a rerun into a fresh output with the same cache asks the server nothing
  args[args.size() - 2] = d + "/out2";
  args.push_back("--cache");
  args.push_back(out + "/cache.sqlite");
  ASSERT_EQ(run_cli(args, d), 0);
  EXPECT_EQ(srv.requests(), asked);
  EXPECT_EQ(slurp(out + "/results.jsonl"), slurp(d + "/out2/results.jsonl"));
}

TEST(SearchCliSlow, KillNineThenResumeMatchesAnUninterruptedRun) {
  const std::string d = temp_dir("search-kill");
  ASSERT_EQ(run_cli(fixed_args(d + "/ref", "beam"), d), 0);
  pid_t pid = spawn_cli(fixed_args(d + "/out", "beam"));
  // kill once the first task is on disk
  for (int i = 0; i < 600 && !(fs::exists(d + "/out/results.jsonl") && !slurp(d + "/out/results.jsonl").empty()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_EQ(run_cli(fixed_args(d + "/out", "beam"), d), 0);
  for (const char* f : {"results.jsonl", "proposals.jsonl", "summary.json", "summary.md"})
    EXPECT_EQ(slurp(d + "/out/" + f), slurp(d + "/ref/" + f)) << f;
}

TEST(SearchCliSlow, BadInputExitsTwoWithOneLineOrIsRecordedPerTask) {
  const std::string d = temp_dir("search-bad");
  int case_no = 0;
  auto one_line_exit2 = [&](std::vector<std::string> args, const std::string& needle) {
    const std::string log = d + "/case" + std::to_string(case_no++);
    fs::create_directories(log);
    const int rc = run_cli(args, log);
    const std::string err = slurp(log + "/log.txt");
    EXPECT_EQ(rc, 2) << err;
    EXPECT_NE(err.find(needle), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  };
  const std::string o = d + "/o";
  one_line_exit2({"search", "--workloads", "softmax", "--algorithm", "annealing", "--out", o}, "unknown algorithm");
  one_line_exit2({"search", "--workloads", "softmax", "--policy", "oracle", "--out", o}, "unknown policy");
  one_line_exit2({"search", "--workloads", "softmax", "--proposals", "0", "--out", o}, "--proposals");
  one_line_exit2({"search", "--workloads", "softmax", "--pair-with", "sibling", "--out", o}, "--pair-with");
  one_line_exit2({"search", "--workloads", "softmax", "--confirm", "0", "--out", o}, "--pair-with parent needs --confirm");
  one_line_exit2({"search", "--workloads", "softmax", "--measurements", "-3", "--out", o}, "--measurements");
  one_line_exit2({"search", "--workloads", "NoSuchOp", "--out", o}, "LEIR-E109 at NoSuchOp: unknown workload");
  one_line_exit2({"search", "--out", o}, "give the roots");
  one_line_exit2({"search", "--tasks", d + "/missing.jsonl", "--out", o}, "missing.jsonl");
  one_line_exit2({"search", "--workloads", "softmax", "--policy", "llm", "--out", o}, "--base-url");
  one_line_exit2({"search", "--workloads", "softmax", "--policy", "replay", "--out", o}, "--replay");
  one_line_exit2({"search", "--workloads", "softmax", "--policy", "cost", "--cost-model", d + "/none.json", "--out", o},
                 "none.json");
  // none of the bad-flag cases above wrote anything (the policy is made before the output directory)
  EXPECT_FALSE(fs::exists(o)) << o;
  // a connection refused at the endpoint is fatal: exit 2, one line
  one_line_exit2({"search", "--workloads", "softmax", "--small", "--timer", "fixed", "--policy", "llm", "--base-url",
                  "http://127.0.0.1:" + std::to_string(evaltest::closed_port()) + "/v1", "--model", "m", "--retries", "0",
                  "--no-progress", "--out", o},
                 "connection");
  // a task that does not validate is recorded as that task's error; the others are searched
  ASSERT_EQ(run_cli({"workloads", "emit", "softmax", "--small", "-o", d + "/sm.jsonl"}, d), 0);
  {
    std::ofstream f(d + "/tasks.jsonl");
    f << slurp(d + "/sm.jsonl");
    f << R"({"workload": "broken", "suite": "custom", "known": [{"name": "A", "role": "output", "dtype": "f32", "shape": [4]}], "leir": "L^{4}_{i=0}[A^{f32,g}_{i}=B^{f32,g}_{i};];"})"
      << "\n";
    f << "not json\n";  // recorded with its file and line
    // 1.68e13 statement executions: refused by the work estimate (E309), not run
    f << R"({"workload": "huge", "suite": "custom", "known": [{"name": "A", "role": "input", "dtype": "f32", "shape": [4096]}, {"name": "C", "role": "output", "dtype": "f32", "shape": [4096]}], "leir": "B^{4096}_{tx=0}L^{4096}_{a=0}L^{1000000}_{c=0}[C^{f32,g}_{tx}=C^{f32,g}_{tx}+A^{f32,g}_{tx};];"})"
      << "\n";
  }
  ASSERT_EQ(run_cli({"search", "--tasks", d + "/tasks.jsonl", "--policy", "random", "--timer", "fixed", "--proposals", "4",
                     "--measurements", "2", "--out", d + "/t", "--no-progress"},
                    d),
            0)
      << slurp(d + "/log.txt");
  const auto rs = jsonl(d + "/t/results.jsonl");
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[0]["status"], "ok");
  EXPECT_EQ(rs[1]["status"], "error");
  EXPECT_NE(rs[1]["error"].get<std::string>().find("LEIR-E110 at 27: invalid or reserved buffer name 'B'"),
            std::string::npos)
      << rs[1]["error"];
  EXPECT_EQ(rs[2]["status"], "error");
  EXPECT_NE(rs[2]["error"].get<std::string>().find("tasks.jsonl:3: LEIR-E101"), std::string::npos) << rs[2]["error"];
  EXPECT_EQ(rs[3]["status"], "error");
  EXPECT_NE(rs[3]["error"].get<std::string>().find("LEIR-E309 at 1: work estimate 1.68e+13 statement executions"),
            std::string::npos)
      << rs[3]["error"];
  EXPECT_EQ(rs[3]["budget"]["proposals"]["used"], 0);
  EXPECT_EQ(ojson::parse(slurp(d + "/t/summary.json"))["errors"].get<int>(), 3);
}

TEST(SearchCliSlow, InterpMaxOpsDecidesWhichEquivalenceCheckRunsAndEachNodeSaysWhich) {
  // softmax --small runs a few thousand statement instances: the interpreter checks it by default, the compiled C
  // lowerings (candidate and root) with --interp-max-ops 0.
  const std::string d = temp_dir("search-check");
  for (const char* limit : {"", "0"}) {
    std::vector<std::string> a{"search", "--workloads", "softmax", "--small", "--policy", "random", "--timer", "fixed",
                               "--proposals", "6", "--measurements", "3", "--no-progress", "--out",
                               d + "/o" + limit};
    if (*limit) a.insert(a.end(), {"--interp-max-ops", limit});
    ASSERT_EQ(run_cli(a, d), 0) << slurp(d + "/log.txt");
    const auto r = jsonl(d + "/o" + limit + "/results.jsonl").at(0);
    int checked = 0;
    for (const auto& n : r["nodes"])
      if (n["id"].get<int>() > 0) {
        EXPECT_EQ(n["check"], *limit ? "compiled_c" : "interpreter") << n.dump();
        ++checked;
      }
    EXPECT_GE(checked, 1);
  }
}

TEST(SearchCli, HelpDocumentsEveryFlag) {
  const std::string d = temp_dir("search-help");
  ASSERT_EQ(run_cli({"search", "--help"}, d), 0);
  const std::string h = slurp(d + "/log.txt");
  for (const char* f : {"--algorithm", "--policy", "--proposals", "--measurements", "--timer", "--tasks", "--workloads",
                        "--out", "--base-url", "--model", "--temperature", "--max-tokens", "--timeout", "--retries",
                        "--api-key-env", "--llm-mode", "--replay", "--cost-model", "--enum-limit", "--time-limit",
                        "--threads", "--no-baseline", "--suspicious-speedup", "--seed", "--max-steps", "--max-memory",
                        "--no-strict-equivalence", "--pair-with", "--confirm", "--interp-max-ops"})
    EXPECT_NE(h.find(f), std::string::npos) << f;
}

}  // namespace
}  // namespace steptp::search
