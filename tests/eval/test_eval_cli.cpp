// `steptp eval` end to end (DATASET.md §8): the gold self-check, corrupted replays through the pipeline, an eval
// against a real local OpenAI-compatible server (the key never leaks), kill -9 then resume, and bad input.
// The dataset is one workload per family of the built-in default with the small shapes and no cover units, generated
// once per test process (about 11 s): 10 test prompts, n = 1 and n = 3.
#include <gtest/gtest.h>

#include <algorithm>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "../dataset/dataset_test_util.hpp"
#include "chat_server.hpp"
#include "raw_http_server.hpp"
#include "step/cache.hpp"
#include "base/hash.hpp"
#include "base/json_text.hpp"

namespace steptp::evaltest {
namespace {
namespace fs = std::filesystem;
using dataset::dstest::run_cli;
using dataset::dstest::spawn_cli;
using dataset::dstest::temp_dir;
using ojson = core::ojson;

using dataset::dstest::slurp;
const auto& jsonl = dataset::dstest::read_json_lines;

class EvalCliSlow : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = temp_dir("eval-ds");
    data_ = dir_ + "/ds";
    ASSERT_EQ(run_cli({"generate", "--out", data_, "--no-measure", "--target-root-ops", "0", "--per-family", "1",
                       "--cover-strategies", "false", "--no-progress"}, dir_), 0)
        << slurp(dir_ + "/log.txt");
    gold_ = dir_ + "/gold.jsonl";
    ASSERT_EQ(run_cli({"gold-replay", data_, "--split", "test", "--out", gold_}, dir_), 0);
    for (const auto& l : jsonl(gold_)) {
      std::vector<std::string> rs;
      for (const auto& r : l["replies"]) rs.push_back(r);
      max_replies_ = std::max(max_replies_, rs.size());
      gold_by_key_[l["prompt_sha256"]] = rs;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  /// A server answering every prompt with its gold reply (sample 0), the reasoning sent as reasoning_content.
  static ChatServer::Script gold_script(double delay = 0) {
    return [delay](const nlohmann::json& req, int, int) {
      auto it = gold_by_key_.find(prompt_key(req));
      if (it == gold_by_key_.end() || it->second.empty()) return ScriptedReply{400, R"({"error": "unknown prompt"})"};
      const std::string& a = it->second[0];
      auto close = a.find("\n</think>\n");
      return ScriptedReply{200, completion_body(a.substr(close + 10), "stop", a.substr(8, close - 8)), delay};
    };
  }

  static std::string dir_, data_, gold_;
  static std::map<std::string, std::vector<std::string>> gold_by_key_;
  static std::size_t max_replies_;  // the most test-split answers of one prompt (one per applicable strategy)
};
std::string EvalCliSlow::dir_, EvalCliSlow::data_, EvalCliSlow::gold_;
std::map<std::string, std::vector<std::string>> EvalCliSlow::gold_by_key_;
std::size_t EvalCliSlow::max_replies_ = 0;

TEST_F(EvalCliSlow, GoldSelfCheckScoresEveryGate) {
  std::string out = dir_ + "/gold-eval";
  // as many samples as the prompt with the most gold answers has, so that every answer is asked once
  ASSERT_GT(max_replies_, 1u);
  ASSERT_EQ(run_cli({"eval", data_, "--policy", "replay", "--replay", gold_, "--samples", std::to_string(max_replies_),
                     "--timer", "fixed", "--out", out, "--no-progress"}, dir_), 0) << slurp(dir_ + "/log.txt");
  ojson s = ojson::parse(slurp(out + "/summary.json"));
  const ojson& g = s["single"];
  // every assistant message of the test split is replayed once
  std::size_t chat_lines = jsonl(data_ + "/chat/test.jsonl").size();
  EXPECT_EQ(g["answers"].get<std::size_t>(), chat_lines);
  for (const char* k : {"parsed", "differs", "valid", "equivalent"}) EXPECT_EQ(g["cumulative_rate"][k].get<double>(), 1.0) << k;
  EXPECT_EQ(g["reasoning_verified"]["rate"].get<double>(), 1.0);
  EXPECT_EQ(g["strategy_consistent"]["rate"].get<double>(), 1.0);
  // every answer passed S5 and then the strict stage, which ran on each (the programs are under its budget)
  EXPECT_EQ(g["strict_equivalence"]["ran"].get<std::size_t>(), chat_lines);
  EXPECT_EQ(g["strict_equivalence"]["rejected"].get<int>(), 0);
  EXPECT_EQ(g["strict_equivalence"]["skipped"].get<int>(), 0);
  const ojson& m = s["multi"];
  ASSERT_GT(m["answers"].get<int>(), 0);
  EXPECT_EQ(m["parsed"].get<double>(), 1.0);
  EXPECT_EQ(m["meets_n"].get<double>(), 1.0);
  EXPECT_EQ(m["all_equivalent"].get<double>(), 1.0);
  for (const auto& r : jsonl(out + "/results.jsonl"))
    if (r["reason"] != "no_proposal") {
      EXPECT_TRUE(r["reasoning_verified"].get<bool>()) << r["id"] << ": " << r["reasoning_detail"];
    }
  // measured with the latency model: every equivalent n = 1 answer has a speedup
  EXPECT_EQ(g["speedup_of_equivalent"]["n"].get<std::size_t>(), chat_lines);
}

TEST_F(EvalCliSlow, CorruptedRepliesFailAtTheirGate) {
  // corrupt the gold answers of the first n = 1 prompt, one corruption per sample
  std::vector<ojson> prompts = jsonl(data_ + "/eval/test.prompts.jsonl");
  const ojson* p1 = nullptr;
  for (const auto& p : prompts)
    if (p["n"] == 1) p1 = &p;
  ASSERT_NE(p1, nullptr);
  std::string key = core::H({(*p1)["messages"][0]["content"].get<std::string>(), (*p1)["messages"][1]["content"].get<std::string>()});
  const std::string gold = gold_by_key_.at(key).at(0);
  auto open = gold.find("<answer>");
  ojson ans = ojson::parse(gold.substr(open + 8, gold.rfind("</answer>") - open - 8));
  std::string think = gold.substr(0, open);
  std::string user = (*p1)["messages"][1]["content"];
  std::string before = user.substr(user.find("(LEIR):\n") + 8);
  before = before.substr(0, before.find('\n'));
  auto with = [&](const std::string& s, const std::string& ir) {
    return think + "<answer>" + core::dump_py(ojson{{"applied_strategy", s}, {"transformed_IR", ir}}) + "</answer>";
  };
  std::string other = ans["applied_strategy"] == "loop_reorder" ? "loop_split" : "loop_reorder";
  std::vector<std::string> replies = {
      think + "<answer>" + core::dump_py(ojson{{"strategy", ans["applied_strategy"]}, {"transformed_IR", ans["transformed_IR"]}}) + "</answer>",
      think + "<answer>{'applied_strategy': 'x', 'transformed_IR': 'y'}</answer>",
      with(ans["applied_strategy"], before),
      with(ans["applied_strategy"], "B^{2}_{tx=0}[Q^{f32,g}_{tx}="),
      with(other, ans["transformed_IR"]),
      gold,
      // a number the JSON library cannot hold: that answer's parse failure, not the end of the run (issue #48)
      think + "<answer>{\"applied_strategy\": 1e999, \"transformed_IR\": \"y\"}</answer>",
  };
  std::string replay = dir_ + "/corrupt.jsonl";
  std::ofstream(replay) << core::dump_py(ojson{{"prompt_sha256", key}, {"replies", replies}}) << "\n";
  std::string out = dir_ + "/corrupt-eval";
  ASSERT_EQ(run_cli({"eval", data_, "--policy", "replay", "--replay", replay, "--samples", "7", "--no-measure", "--out",
                     out, "--no-progress"}, dir_), 0) << slurp(dir_ + "/log.txt");
  std::map<int, ojson> by_sample;
  for (const auto& r : jsonl(out + "/results.jsonl"))
    if (r["id"] == (*p1)["id"]) by_sample[r["sample"].get<int>()] = r;
  ASSERT_EQ(by_sample.size(), 7u);
  EXPECT_EQ(by_sample[0]["failed_gate"], "parsed");
  EXPECT_EQ(by_sample[0]["reason"], "wrong_keys");
  EXPECT_EQ(by_sample[1]["failed_gate"], "parsed");
  EXPECT_EQ(by_sample[1]["reason"], "not_json");
  EXPECT_EQ(by_sample[2]["failed_gate"], "differs");
  EXPECT_EQ(by_sample[3]["failed_gate"], "valid");
  EXPECT_EQ(by_sample[4]["equivalent"], true);
  EXPECT_EQ(by_sample[4]["strategy_consistent"], false);
  EXPECT_EQ(by_sample[4]["reasoning_verified"], false);
  EXPECT_EQ(by_sample[5]["equivalent"], true);
  EXPECT_EQ(by_sample[5]["reasoning_verified"], true);
  EXPECT_EQ(by_sample[6]["failed_gate"], "parsed");
  EXPECT_EQ(by_sample[6]["reason"], "not_json");
  ojson s = ojson::parse(slurp(out + "/summary.json"));
  EXPECT_EQ(s["single"]["answers"], 7);
  EXPECT_EQ(s["single"]["counts"]["parsed"], 4);
  EXPECT_EQ(s["single"]["counts"]["differs"], 3);
  EXPECT_EQ(s["single"]["counts"]["valid"], 2);
  EXPECT_EQ(s["single"]["counts"]["equivalent"], 2);
  EXPECT_EQ(s["single"]["failures"]["parsed"]["wrong_keys"], 1);
  EXPECT_EQ(s["single"]["failures"]["parsed"]["not_json"], 2);
  // not measured: the faster gate is n/a, not 0 %
  EXPECT_TRUE(s["single"]["counts"]["faster"].is_null());
  EXPECT_TRUE(s["single"]["cumulative_rate"]["faster"].is_null());
  EXPECT_FALSE(s["single"]["failures"].contains("faster"));
  EXPECT_NE(slurp(out + "/summary.md").find("n/a (not measured)"), std::string::npos);
}

TEST_F(EvalCliSlow, LlmEndpointEndToEndKeepsTheKeySecret) {
  const std::string secret = "sk-e2e-" + core::sha256_hex(dir_).substr(0, 24);
  ::setenv("STEPTP_E2E_KEY", secret.c_str(), 1);
  ChatServer srv(gold_script());
  std::string out = dir_ + "/llm-eval";
  fs::create_directories(out);  // so the first run's log lands there too
  std::vector<std::string> args = {"eval", data_, "--base-url", srv.base_url(), "--model", "test-model",
                                   "--api-key-env", "STEPTP_E2E_KEY", "--timer", "fixed", "--out", out, "--concurrency", "3"};
  ASSERT_EQ(run_cli(args, out), 0) << slurp(out + "/log.txt");
  std::size_t prompts = jsonl(data_ + "/eval/test.prompts.jsonl").size();
  EXPECT_EQ(srv.requests(), int(prompts));
  for (const auto& h : srv.authorization_headers()) EXPECT_EQ(h, "Bearer " + secret);
  ojson s = ojson::parse(slurp(out + "/summary.json"));
  EXPECT_EQ(s["single"]["cumulative_rate"]["equivalent"].get<double>(), 1.0);
  EXPECT_EQ(s["single"]["reasoning_verified"]["rate"].get<double>(), 1.0);  // reasoning_content re-wrapped in <think>
  EXPECT_EQ(s["usage"]["prompt_tokens"].get<int>(), 100 * int(prompts));
  EXPECT_EQ(jsonl(out + "/transcripts.jsonl").size(), prompts);
  // a rerun asks nothing and writes the same summary
  std::string first = slurp(out + "/summary.json");
  ASSERT_EQ(run_cli(args, out), 0);
  EXPECT_EQ(srv.requests(), int(prompts));
  EXPECT_EQ(slurp(out + "/summary.json"), first);
  // the key is in no output file, log line or cache row
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.is_regular_file()) {
      EXPECT_EQ(slurp(e.path().string()).find(secret), std::string::npos) << e.path();
    }
}

TEST_F(EvalCliSlow, SamplesModeAsksEachSubRequestOnceAndRerunsFromTheCache) {
  ChatServer srv(gold_script());
  std::string out = dir_ + "/samples-eval";
  std::vector<std::string> args = {"eval", data_, "--base-url", srv.base_url(), "--model", "m", "--llm-mode", "samples",
                                   "--no-measure", "--concurrency", "4", "--out", out, "--no-progress"};
  ASSERT_EQ(run_cli(args, dir_), 0) << slurp(dir_ + "/log.txt");
  int expected = 0;
  for (const auto& p : jsonl(data_ + "/eval/test.prompts.jsonl")) expected += p["n"].get<int>();
  // an n = 3 prompt is 3 n = 1 requests with sample indices of their own, never merged with the n = 1 prompt's
  EXPECT_EQ(srv.requests(), expected);
  ojson first = ojson::parse(slurp(out + "/summary.json"));
  EXPECT_EQ(first["multi"]["parsed"].get<double>(), 1.0);
  ASSERT_EQ(run_cli(args, dir_), 0);
  EXPECT_EQ(srv.requests(), expected);
  EXPECT_EQ(ojson::parse(slurp(out + "/summary.json")), first);
}

TEST_F(EvalCliSlow, KillNineThenResumeGivesTheSameSummaryWithoutRepeatedRequests) {
  std::size_t prompts = jsonl(data_ + "/eval/test.prompts.jsonl").size();
  auto args = [&](const std::string& url, const std::string& out) {
    return std::vector<std::string>{"eval", data_, "--base-url", url, "--model", "m", "--timer", "fixed", "--out", out,
                                    "--concurrency", "2", "--no-progress"};
  };
  ChatServer ref_srv(gold_script(0.3));
  std::string ref = dir_ + "/ref-eval";
  ASSERT_EQ(run_cli(args(ref_srv.base_url(), ref), dir_), 0) << slurp(dir_ + "/log.txt");

  ChatServer srv(gold_script(0.3));  // 10 prompts, 2 in flight: at least 1.5 s of requests
  std::string out = dir_ + "/killed-eval";
  int pid = spawn_cli(args(srv.base_url(), out));
  std::mt19937 rng{std::random_device{}()};
  int kill_after_ms = 100 + int(rng() % 1000);
  std::this_thread::sleep_for(std::chrono::milliseconds(kill_after_ms));
  ASSERT_NE(waitpid(pid, nullptr, WNOHANG), pid) << "the eval finished before the kill";
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  const int asked_before = srv.requests();
  std::int64_t stored = 0;  // a kill before the eval created its output directory (a loaded machine) stored nothing
  if (fs::exists(out + "/cache.sqlite")) {
    core::Cache c(out + "/cache.sqlite");
    stored = c.count("llm_calls");
  }
  // whatever is on disk after the kill is complete JSON lines
  if (fs::exists(out + "/results.jsonl")) {
    EXPECT_NO_THROW(jsonl(out + "/results.jsonl")) << "killed after " << kill_after_ms << " ms";
  }
  ASSERT_EQ(run_cli(args(srv.base_url(), out), dir_), 0) << slurp(dir_ + "/log.txt");
  EXPECT_EQ(slurp(out + "/summary.json"), slurp(ref + "/summary.json")) << "killed after " << kill_after_ms << " ms";
  // the rerun asked exactly the prompts whose replies were not stored; at most the 2 in flight were asked twice
  EXPECT_EQ(srv.requests() - asked_before, int(prompts) - int(stored)) << "killed after " << kill_after_ms << " ms";
  EXPECT_LE(srv.requests(), int(prompts) + 2);
  for (const auto& [k, n] : srv.per_prompt()) EXPECT_LE(n, 2) << k;
}

TEST_F(EvalCliSlow, BadInputExitsTwoWithOneErrorLine) {
  auto one_error_line = [&](std::vector<std::string> args, const std::string& must_mention) {
    std::string d = temp_dir("eval-bad");
    int rc = run_cli(args, d);
    std::string log = slurp(d + "/log.txt");
    EXPECT_EQ(rc, 2) << log;
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
    EXPECT_EQ(log.rfind("steptp: error: ", 0), 0u) << log;
    EXPECT_NE(log.find(must_mention), std::string::npos) << log;
    fs::remove_all(d);
  };
  std::string out = dir_ + "/bad-eval";
  std::string closed = "http://127.0.0.1:" + std::to_string(closed_port()) + "/v1";
  one_error_line({"eval", data_, "--base-url", closed, "--model", "m", "--retries", "1", "--backoff", "0.01", "--out",
                  out, "--no-progress"}, "connection_error");
  one_error_line({"eval", data_, "--base-url", "htp:/nowhere", "--model", "m", "--out", out}, "--base-url");
  one_error_line({"eval", dir_, "--policy", "random", "--out", out}, "D001 at " + dir_ + ": not a steptp dataset");
  // a dataset copy without the val prompts, and one with an empty test prompt file
  std::string copy = dir_ + "/ds-copy";
  fs::copy(data_, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  fs::remove(copy + "/eval/val.prompts.jsonl");
  one_error_line({"eval", copy, "--split", "val", "--policy", "random", "--out", out},
                 "D002 at " + copy + "/eval/val.prompts.jsonl: the val split's prompt file is missing");
  std::ofstream(copy + "/eval/test.prompts.jsonl", std::ios::trunc).flush();
  one_error_line({"eval", copy, "--policy", "random", "--out", out}, "D002 at " + copy + "/eval/test.prompts.jsonl: empty prompt file");
  one_error_line({"eval", data_, "--policy", "replay", "--replay", dir_ + "/no-such-file.jsonl", "--out", out}, "no-such-file");
  one_error_line({"eval", data_, "--split", "train", "--policy", "random", "--out", out}, "unknown split");
  one_error_line({"eval", data_, "--policy", "random", "--samples", "0", "--out", out}, "--samples");
  one_error_line({"eval", data_, "--policy", "random", "--out", dir_ + "/gold.jsonl"}, "cannot create the directory");

  // The endpoint fails for good after 3 answers: exit 2, and the results written so far are complete lines.
  auto healthy = std::make_shared<std::atomic<bool>>(false);
  ChatServer failing([base = gold_script(), healthy](const nlohmann::json& req, int pc, int call) {
    if (call >= 3 && !healthy->load()) return ScriptedReply{503, R"({"error": "overloaded"})"};
    return base(req, pc, call);
  });
  std::string part = dir_ + "/partial-eval";
  std::vector<std::string> args = {"eval", data_, "--base-url", failing.base_url(), "--model", "m", "--retries", "1",
                                   "--backoff", "0.01", "--concurrency", "1", "--no-measure", "--out", part, "--no-progress"};
  one_error_line(args, "http_503");
  auto lines = jsonl(part + "/results.jsonl");
  EXPECT_EQ(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_TRUE(l["parsed"].get<bool>());
  EXPECT_FALSE(fs::exists(part + "/summary.json"));
  // once the endpoint recovers, the rerun asks only the prompts without a stored reply
  healthy->store(true);
  const int before = failing.requests();
  ASSERT_EQ(run_cli(args, dir_), 0) << slurp(dir_ + "/log.txt");
  EXPECT_EQ(failing.requests() - before, int(jsonl(data_ + "/eval/test.prompts.jsonl").size()) - 3);
  EXPECT_TRUE(fs::exists(part + "/summary.json"));
}

// Issue #48 item 7: three prompts always get a malformed HTTP reply from a raw socket server (a body shorter than
// its Content-Length, an HTTP/0.9 reply, a 1 MiB header line); each is asked twice (--retries 1) and graded as its
// own policy_error, and the other prompts are still answered and graded: exit 0 with a full results.jsonl.
TEST_F(EvalCliSlow, MalformedHttpRepliesArePromptErrorsAndTheRunGoesOn) {
  const std::vector<ojson> prompts = jsonl(data_ + "/eval/test.prompts.jsonl");
  ASSERT_GE(prompts.size(), 4u);
  const std::vector<std::string> malformed = {
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\nConnection: close\r\n\r\n"
      "{\"choices\": [",
      completion_body("<answer>no status line</answer>"),
      "HTTP/1.1 200 OK\r\nX-Big: " + std::string(1 << 20, 'a') + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"};
  std::map<std::string, std::string> bad_reply_by_key, bad_id_by_key;
  for (std::size_t i = 0; i < malformed.size(); ++i) {
    const std::string key = core::H({prompts[i]["messages"][0]["content"].get<std::string>(),
                                     prompts[i]["messages"][1]["content"].get<std::string>()});
    bad_reply_by_key[key] = malformed[i];
    bad_id_by_key[key] = prompts[i]["id"];
  }
  const auto gold = gold_script();
  RawHttpServer srv([&](const nlohmann::json& req, int call) {
    auto bad = bad_reply_by_key.find(prompt_key(req));
    if (bad != bad_reply_by_key.end()) return bad->second;
    ScriptedReply r = gold(req, 0, call);
    return http_reply(r.status, r.body);
  });
  const std::string out = dir_ + "/malformed-eval";
  ASSERT_EQ(run_cli({"eval", data_, "--base-url", srv.base_url(), "--model", "m", "--retries", "1", "--backoff", "0.01",
                     "--no-measure", "--concurrency", "2", "--out", out, "--no-progress"}, dir_), 0)
      << slurp(dir_ + "/log.txt");
  const auto lines = jsonl(out + "/results.jsonl");
  ASSERT_EQ(lines.size(), prompts.size());
  std::set<std::string> bad_ids;
  for (const auto& [key, id] : bad_id_by_key) bad_ids.insert(id);
  for (const auto& l : lines) {
    SCOPED_TRACE(l["id"].get<std::string>());
    if (bad_ids.count(l["id"].get<std::string>())) {
      EXPECT_EQ(l["failed_gate"], "parsed");
      EXPECT_EQ(l["reason"], "policy_error");
      const std::string detail = l["detail"];
      EXPECT_EQ(detail.rfind("bad_reply: malformed HTTP reply: ", 0), 0u) << detail;
      EXPECT_NE(detail.find("(after 2 attempts)"), std::string::npos) << detail;
    } else {
      EXPECT_TRUE(l["parsed"].get<bool>()) << l["detail"];
      EXPECT_TRUE(l["equivalent"].get<bool>()) << l["detail"];
    }
  }
  for (const auto& [key, id] : bad_id_by_key) EXPECT_EQ(srv.per_prompt()[key], 2) << id;
  EXPECT_EQ(srv.requests(), int(prompts.size()) + 3);
  ojson s = ojson::parse(slurp(out + "/summary.json"));
  EXPECT_EQ(s["replies"]["policy_errors"], 3);
}

TEST(EvalCli, HelpDocumentsEveryFlag) {
  std::string d = temp_dir("eval-help");
  ASSERT_EQ(run_cli({"eval", "--help"}, d), 0);
  std::string help = slurp(d + "/log.txt");
  for (const char* f : {"--split", "--out", "--policy", "--base-url", "--model", "--temperature", "--max-tokens", "--timeout",
                        "--retries", "--backoff", "--api-key-env", "--seed", "--llm-mode", "--concurrency", "--replay",
                        "--samples", "--no-measure", "--timer", "--repeats", "--faster-threshold", "--suspicious-speedup",
                        "--recheck-trials", "--consistency-enum-limit", "--cache", "--limit", "--n", "--no-progress", "--data",
                        "--no-strict-equivalence"})
    EXPECT_NE(help.find(f), std::string::npos) << f;
  // issue #48 item 8: the exit statuses
  EXPECT_NE(help.find("Exit status: 0 "), std::string::npos) << help;
  EXPECT_NE(help.find("; 2 "), std::string::npos) << help;
  fs::remove_all(d);
}

}  // namespace
}  // namespace steptp::evaltest
