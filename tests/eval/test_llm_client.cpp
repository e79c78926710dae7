// The llm policy against a real HTTP server on 127.0.0.1 (tests/eval/chat_server.hpp): replies, reasoning_content,
// truncation, usage, retries with backoff, error classes, the llm_calls cache and the secrecy of the API key; and
// malformed HTTP replies from a raw socket server (tests/eval/raw_http_server.hpp).
#include <gtest/gtest.h>

#include <cstdlib>

#include "chat_server.hpp"
#include "raw_http_server.hpp"
#include "step/cache.hpp"
#include "policy/llm_client.hpp"

namespace steptp::evaltest {
namespace {

policy::Prompt prompt(const std::string& user = "Workload: X\nCurrent program (LEIR):\nP") {
  policy::Prompt p;
  p.id = "test-1-n1";
  p.system = "You optimise tensor programs written in LEIR.";
  p.user = user;
  return p;
}

policy::LlmConfig config(const std::string& base, int retries = 3) {
  policy::LlmConfig c;
  c.base_url = base;
  c.model = "test-model";
  c.retries = retries;
  c.backoff_s = 0.01;
  c.timeout_s = 5;
  return c;
}

TEST(LlmClient, SendsTheChatRequestAndReadsTheReply) {
  ChatServer srv([](const nlohmann::json&, int, int) { return ScriptedReply{200, completion_body("<answer>x</answer>")}; });
  policy::LlmConfig c = config(srv.base_url() + "/");  // a trailing slash is tolerated
  c.temperature = 0.25;
  c.max_tokens = 77;
  c.seed = 5;
  policy::LlmPolicy p(c, nullptr);
  policy::Reply r = p.reply(prompt(), 2);
  EXPECT_EQ(r.content, "<answer>x</answer>");
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_FALSE(r.truncated);
  EXPECT_EQ(r.prompt_tokens, 100);
  EXPECT_EQ(r.completion_tokens, 20);
  EXPECT_EQ(r.attempts, 1);
  EXPECT_FALSE(r.cached);
  ASSERT_EQ(srv.requests(), 1);
  const auto b = srv.bodies()[0];
  EXPECT_EQ(b["model"], "test-model");
  EXPECT_EQ(b["messages"][0]["role"], "system");
  EXPECT_EQ(b["messages"][0]["content"], prompt().system);
  EXPECT_EQ(b["messages"][1]["role"], "user");
  EXPECT_EQ(b["messages"][1]["content"], prompt().user);
  EXPECT_DOUBLE_EQ(b["temperature"].get<double>(), 0.25);
  EXPECT_EQ(b["max_tokens"], 77);
  EXPECT_EQ(b["seed"], 7);  // seed + sample index
  EXPECT_EQ(srv.authorization_headers()[0], "");  // no key configured, no header
}

TEST(LlmClient, ReasoningContentIsRewrappedInThink) {
  ChatServer srv([](const nlohmann::json&, int, int) {
    return ScriptedReply{200, completion_body("<answer>{}</answer>", "stop", "Observation:\n- x")};
  });
  policy::LlmPolicy p(config(srv.base_url()), nullptr);
  EXPECT_EQ(p.reply(prompt(), 0).content, "<think>\nObservation:\n- x\n</think>\n<answer>{}</answer>");
}

TEST(LlmClient, LengthIsTruncatedAndMissingUsageIsMinusOne) {
  ChatServer srv([](const nlohmann::json&, int, int) { return ScriptedReply{200, completion_body("<think>\nlong", "length", "", false)}; });
  policy::LlmPolicy p(config(srv.base_url()), nullptr);
  policy::Reply r = p.reply(prompt(), 0);
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.prompt_tokens, -1);
  EXPECT_EQ(r.completion_tokens, -1);
}

TEST(LlmClient, TooManyRequestsIsRetriedThenSucceeds) {
  ChatServer srv([](const nlohmann::json&, int prompt_call, int) {
    if (prompt_call < 2) return ScriptedReply{429, R"({"error": "rate limited"})", 0, {{"Retry-After", "0"}}};
    return ScriptedReply{200, completion_body("ok")};
  });
  policy::LlmPolicy p(config(srv.base_url()), nullptr);
  policy::Reply r = p.reply(prompt(), 0);
  EXPECT_EQ(r.content, "ok");
  EXPECT_EQ(r.attempts, 3);
  EXPECT_EQ(r.retried, (std::vector<std::string>{"http_429", "http_429"}));
  EXPECT_EQ(srv.requests(), 3);
  EXPECT_EQ(p.requests(), 3);
}

TEST(LlmClient, ServerErrorsExhaustRetriesAndStopTheRun) {
  ChatServer srv([](const nlohmann::json&, int, int) { return ScriptedReply{500, R"({"error": "boom"})"}; });
  policy::LlmPolicy p(config(srv.base_url(), 2), nullptr);
  try {
    p.reply(prompt(), 0);
    FAIL() << "expected PolicyError";
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(e.code(), "http_500");
    EXPECT_TRUE(e.fatal());
    EXPECT_NE(std::string(e.what()).find("after 3 attempts"), std::string::npos) << e.what();
  }
  EXPECT_EQ(srv.requests(), 3);  // the first try and 2 retries
}

TEST(LlmClient, SlowReplyTimesOutAndIsRetried) {
  ChatServer srv([](const nlohmann::json&, int, int) { return ScriptedReply{200, completion_body("late"), 1.5}; });
  policy::LlmConfig c = config(srv.base_url(), 1);
  c.timeout_s = 0.3;
  policy::LlmPolicy p(c, nullptr);
  try {
    p.reply(prompt(), 0);
    FAIL() << "expected PolicyError";
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(e.code(), "timeout");
    EXPECT_FALSE(e.fatal());  // a slow answer to one prompt does not stop an eval
  }
  EXPECT_EQ(srv.requests(), 2);
}

TEST(LlmClient, MalformedJsonIsAPolicyErrorWithoutRetry) {
  ChatServer srv([](const nlohmann::json&, int, int) { return ScriptedReply{200, R"({"choices": [{"message": )"}; });
  policy::LlmPolicy p(config(srv.base_url()), nullptr);
  try {
    p.reply(prompt(), 0);
    FAIL() << "expected PolicyError";
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(e.code(), "policy_error");
    EXPECT_FALSE(e.fatal());
  }
  EXPECT_EQ(srv.requests(), 1);
}

// Issue #48 items 3 and 7: a body shorter than its Content-Length, an HTTP/0.9 reply (no status line, just bytes),
// 1 MiB of response headers (one line, or 1 KiB lines) and a body over the 64 MiB read limit are retried, then fail
// that prompt as bad_reply (not fatal: the eval goes on), and the endpoint answers the next prompt.
TEST(LlmClient, MalformedHttpRepliesAreRetriedThenFailOnlyThatPrompt) {
  std::string many;
  for (int i = 0; i < 1024; ++i) many += "X-H" + std::to_string(i) + ": " + std::string(1000, 'b') + "\r\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"body shorter than its Content-Length",
       "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\nConnection: close\r\n\r\n" +
           completion_body("cut").substr(0, 30)},
      {"HTTP/0.9 reply", completion_body("no status line")},
      {"1 MiB header line", "HTTP/1.1 200 OK\r\nX-Big: " + std::string(1 << 20, 'a') +
                                "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"},
      {"1 MiB of header lines", "HTTP/1.1 200 OK\r\n" + many + "Content-Length: 2\r\nConnection: close\r\n\r\n{}"},
      {"a body over the 64 MiB read limit", "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string((64 << 20) + 1) +
                                                "\r\nConnection: close\r\n\r\n" + std::string((64 << 20) + 1, ' ')}};
  for (const auto& [name, bytes] : cases) {
    SCOPED_TRACE(name);
    RawHttpServer srv([&bytes](const nlohmann::json& req, int) {
      const bool fine = req.is_object() && req.contains("messages") && req["messages"][1]["content"] == "fine";
      return fine ? http_reply(200, completion_body("ok")) : bytes;
    });
    policy::LlmPolicy p(config(srv.base_url(), 2), nullptr);
    try {
      p.reply(prompt(), 0);
      FAIL() << "expected PolicyError";
    } catch (const policy::PolicyError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.code(), "bad_reply") << what;
      EXPECT_FALSE(e.fatal()) << what;
      EXPECT_NE(what.find("malformed HTTP reply"), std::string::npos) << what;
      EXPECT_NE(what.find("(after 3 attempts)"), std::string::npos) << what;
    }
    EXPECT_EQ(srv.requests(), 3);  // the first try and 2 retries
    EXPECT_EQ(p.reply(prompt("fine"), 0).content, "ok");
  }
}

TEST(LlmClient, ClientErrorsFailAtOnceAndAuthErrorsAreFatal) {
  ChatServer srv([](const nlohmann::json& req, int, int) {
    return ScriptedReply{req["messages"][1]["content"] == "bad" ? 400 : 401, R"({"error": "no"})"};
  });
  policy::LlmPolicy p(config(srv.base_url()), nullptr);
  try {
    p.reply(prompt("bad"), 0);
    FAIL();
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(e.code(), "policy_error");
    EXPECT_FALSE(e.fatal());
  }
  try {
    p.reply(prompt("other"), 0);
    FAIL();
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(e.code(), "policy_error");
    EXPECT_TRUE(e.fatal());
  }
  EXPECT_EQ(srv.requests(), 2);
}

TEST(LlmClient, UnreachableEndpointIsAFatalConnectionError) {
  policy::LlmPolicy p(config("http://127.0.0.1:" + std::to_string(closed_port()) + "/v1", 1), nullptr);
  try {
    p.reply(prompt(), 0);
    FAIL();
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(e.code(), "connection_error");
    EXPECT_TRUE(e.fatal());
  }
  EXPECT_EQ(p.requests(), 2);
}

TEST(LlmClient, BadConfigurationIsRefusedUpFront) {
  for (const char* url : {"ftp://example.org/v1", "http://", "127.0.0.1:8000/v1", "http:///v1"}) {
    try {
      policy::LlmPolicy p(config(url), nullptr);
      FAIL() << url;
    } catch (const policy::PolicyError& e) {
      EXPECT_EQ(e.code(), "policy_error") << url;
      EXPECT_TRUE(e.fatal());
    }
  }
  policy::LlmConfig c = config("http://127.0.0.1:1/v1");
  c.api_key_env = "STEPTP_TEST_KEY_THAT_IS_NOT_SET";
  ::unsetenv(c.api_key_env.c_str());
  EXPECT_THROW(policy::LlmPolicy(c, nullptr), policy::PolicyError);
}

TEST(LlmClient, ApiKeyIsSentButNeverInErrorsOrTheCache) {
  const std::string key = "sk-test-5f1e0c9b7d2a4e68";
  ::setenv("STEPTP_TEST_API_KEY", key.c_str(), 1);
  // The server echoes the Authorization header in its error body and in the reply.
  ChatServer echo([&](const nlohmann::json& req, int, int) {
    std::string auth = "Bearer " + key;
    if (req["messages"][1]["content"] == "fail") return ScriptedReply{400, R"({"error": "bad key )" + auth + "\"}"};
    return ScriptedReply{200, completion_body("you sent " + auth)};
  });
  core::Cache cache(":memory:");
  policy::LlmConfig c = config(echo.base_url());
  c.api_key_env = "STEPTP_TEST_API_KEY";
  policy::LlmPolicy p(c, &cache);
  policy::Reply r = p.reply(prompt(), 0);
  EXPECT_EQ(echo.authorization_headers()[0], "Bearer " + key);
  EXPECT_EQ(r.content.find(key), std::string::npos) << r.content;
  EXPECT_EQ(r.raw.find(key), std::string::npos);
  auto row = cache.get("llm_calls", p.call_key(prompt(), 0));
  ASSERT_TRUE(row);
  EXPECT_EQ(row->find(key), std::string::npos);
  try {
    p.reply(prompt("fail"), 0);
    FAIL();
  } catch (const policy::PolicyError& e) {
    EXPECT_EQ(std::string(e.what()).find(key), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("***"), std::string::npos) << e.what();
  }
}

TEST(LlmClient, AnsweredPromptsAreReplayedFromTheCache) {
  ChatServer srv([](const nlohmann::json&, int, int call) { return ScriptedReply{200, completion_body("reply " + std::to_string(call))}; });
  core::Cache cache(":memory:");
  policy::LlmPolicy p(config(srv.base_url()), &cache);
  EXPECT_EQ(p.reply(prompt(), 0).content, "reply 0");
  EXPECT_EQ(p.reply(prompt(), 1).content, "reply 1");  // another sample index is another call
  policy::LlmPolicy again(config(srv.base_url()), &cache);
  policy::Reply r = again.reply(prompt(), 0);
  EXPECT_TRUE(r.cached);
  EXPECT_EQ(r.content, "reply 0");
  EXPECT_EQ(r.prompt_tokens, 100);
  EXPECT_EQ(srv.requests(), 2);
}

TEST(LlmClient, ParseChatResponseRejectsBodiesWithoutAMessage) {
  EXPECT_THROW(policy::parse_chat_response(R"({"choices": []})"), policy::PolicyError);
  EXPECT_THROW(policy::parse_chat_response(R"({"object": "error"})"), policy::PolicyError);
  EXPECT_THROW(policy::parse_chat_response("<html>502</html>"), policy::PolicyError);
  // content null (some servers send it with tool calls): empty content, not an error
  EXPECT_EQ(policy::parse_chat_response(R"({"choices": [{"message": {"content": null}, "finish_reason": "stop"}]})").content, "");
  // newer vLLM: "reasoning"
  EXPECT_EQ(policy::parse_chat_response(R"({"choices": [{"message": {"content": "A", "reasoning": "R"}}]})").content,
            "<think>\nR\n</think>\nA");
}

}  // namespace
}  // namespace steptp::evaltest
