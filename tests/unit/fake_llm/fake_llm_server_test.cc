// The real `fake-llm` binary on port 0, driven over HTTP the way the llm
// agent will drive it.

#include <httplib.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_split.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::fake_llm {
namespace {

using ::testing::HasSubstr;

constexpr char kScript[] = R"(
rules:
  - name: rate-limited
    match: {contains: busy, times: 1}
    respond:
      error: {status: 429, retry_after_seconds: 2}
  - name: tool
    match: {last_user_contains: find TODOs, has_tool_results: false}
    respond:
      tool_calls:
        - name: grep
          arguments: {pattern: TODO}
  - name: after-tool
    match: {tool_result_contains: 3 matches}
    respond:
      content: {summary: found 3, success: true}
  - name: default
    respond:
      content: Hello from the fake.
      chunk_chars: 5
)";

class FakeLlmBinaryTest : public ::testing::Test {
 protected:
  // `flags` follow the usual ones, e.g. {"--rpm", "60"}.
  void StartWith(const std::string& script, const std::vector<std::string>& flags = {}) {
    std::ofstream(Path("script.yaml")) << script;
    std::vector<std::string> argv = {std::string(TASKBOARD_BIN_DIR) + "/fake-llm",
                                     "--script",
                                     Path("script.yaml"),
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--port-file",
                                     Path("port"),
                                     "--log",
                                     Path("requests.jsonl")};
    argv.insert(argv.end(), flags.begin(), flags.end());
    absl::StatusOr<std::unique_ptr<ChildProcess>> child =
        ChildProcess::Spawn(argv, Path("stderr.log"));
    ASSERT_TRUE(child.ok()) << child.status();
    process_ = *std::move(child);
  }

  void WaitForPort() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (ReadFileOrEmpty(Path("port")).empty()) {
      ASSERT_TRUE(process_->Running()) << ReadFileOrEmpty(Path("stderr.log"));
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "fake-llm did not start";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    client_ =
        std::make_unique<httplib::Client>("127.0.0.1", std::stoi(ReadFileOrEmpty(Path("port"))));
    client_->set_read_timeout(10, 0);
  }

  httplib::Result Chat(const std::string& user, bool stream = false,
                       const std::string& path = "/v1/chat/completions") {
    Json request{{"model", "gpt-x"},
                 {"messages", Json::array({Json{{"role", "user"}, {"content", user}}})}};
    if (stream) request["stream"] = true;
    return client_->Post(path.c_str(), DumpJson(request), "application/json");
  }

  std::string Path(const std::string& name) const { return (dir_.path() / name).string(); }

  testing::TempDir dir_;
  std::unique_ptr<ChildProcess> process_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(FakeLlmBinaryTest, PlainRequest_ReturnsScriptedCompletion) {
  StartWith(kScript);
  WaitForPort();
  httplib::Result result = Chat("say hello", false, "/chat/completions");
  ASSERT_TRUE(result) << httplib::to_string(result.error());
  EXPECT_EQ(result->status, 200);
  const Json completion = *ParseJson(result->body);
  EXPECT_EQ(completion["object"], "chat.completion");
  EXPECT_EQ(completion["choices"][0]["message"]["content"], "Hello from the fake.");
  EXPECT_EQ(completion["choices"][0]["finish_reason"], "stop");
  EXPECT_GT(completion["usage"]["total_tokens"].get<int>(), 0);
}

TEST_F(FakeLlmBinaryTest, ToolTurnThenResult_CallsToolThenAnswers) {
  StartWith(kScript);
  WaitForPort();
  httplib::Result first = Chat("find TODOs");
  ASSERT_TRUE(first);
  const Json call = (*ParseJson(first->body))["choices"][0];
  EXPECT_EQ(call["finish_reason"], "tool_calls");
  EXPECT_EQ(call["message"]["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(call["message"]["tool_calls"][0]["function"]["name"], "grep");
  EXPECT_EQ(call["message"]["tool_calls"][0]["function"]["arguments"], R"({"pattern":"TODO"})");

  Json request{
      {"messages",
       Json::array(
           {Json{{"role", "user"}, {"content", "find TODOs"}}, call["message"],
            Json{{"role", "tool"}, {"tool_call_id", "call_1"}, {"content", "3 matches"}}})}};
  httplib::Result second =
      client_->Post("/v1/chat/completions", DumpJson(request), "application/json");
  ASSERT_TRUE(second);
  EXPECT_EQ((*ParseJson(second->body))["choices"][0]["message"]["content"],
            R"({"summary":"found 3","success":true})");
}

TEST_F(FakeLlmBinaryTest, RateLimitRule_Sends429WithRetryAfterOnce) {
  StartWith(kScript);
  WaitForPort();
  httplib::Result limited = Chat("busy?");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(limited->get_header_value("Retry-After"), "2");
  EXPECT_EQ((*ParseJson(limited->body))["error"]["type"], "rate_limit_exceeded");
  httplib::Result retried = Chat("busy?");
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->status, 200);
}

TEST_F(FakeLlmBinaryTest, StreamRequested_SendsSseChunksAndDone) {
  StartWith(kScript);
  WaitForPort();
  httplib::Result result = Chat("say hello", /*stream=*/true);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->status, 200);
  EXPECT_THAT(result->get_header_value("Content-Type"), HasSubstr("text/event-stream"));
  std::string content;
  std::vector<std::string> events = absl::StrSplit(result->body, "\n\n", absl::SkipEmpty());
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.back(), "data: [DONE]");
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    ASSERT_EQ(events[i].rfind("data: ", 0), 0u) << events[i];
    const Json chunk = *ParseJson(events[i].substr(6));
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    const Json& delta = chunk["choices"][0]["delta"];
    if (delta.contains("content")) content += delta["content"].get<std::string>();
  }
  EXPECT_EQ(content, "Hello from the fake.");
}

TEST_F(FakeLlmBinaryTest, Requests_AreLoggedToFileAndEndpoint) {
  StartWith(kScript);
  WaitForPort();
  ASSERT_TRUE(Chat("find TODOs"));
  ASSERT_TRUE(Chat("anything else"));
  httplib::Result missing = client_->Post("/v1/chat/completions", "{}", "application/json");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400);

  httplib::Result listed = client_->Get("/requests");
  ASSERT_TRUE(listed);
  const Json entries = *ParseJson(listed->body);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["rule_name"], "tool");
  EXPECT_EQ(entries[0]["request"]["messages"][0]["content"], "find TODOs");
  EXPECT_EQ(entries[1]["rule_name"], "default");
  EXPECT_EQ(entries[2]["status"], 400);
  ASSERT_TRUE(entries[0]["time_ms"].is_number_integer());
  EXPECT_LE(entries[0]["time_ms"].get<int64_t>(), entries[2]["time_ms"].get<int64_t>());

  std::vector<std::string> lines =
      absl::StrSplit(ReadFileOrEmpty(Path("requests.jsonl")), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(*ParseJson(lines[1]), entries[1]);

  httplib::Result health = client_->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

TEST_F(FakeLlmBinaryTest, SlowRule_ClientTimesOutAndSigtermStillExitsPromptly) {
  StartWith("rules: [{respond: {content: late, delay_ms: 600000}}]");
  WaitForPort();
  client_->set_read_timeout(0, 200'000);
  httplib::Result result = Chat("hello?");
  EXPECT_FALSE(result);
  EXPECT_EQ(result.error(), httplib::Error::Read);

  // A second request still sleeping in the server must not hold up exit.
  std::thread waiting([this] { Chat("still there?"); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (ReadFileOrEmpty(Path("requests.jsonl")).find("still there?") == std::string::npos) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the request never arrived";
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  process_->Signal(SIGTERM);
  EXPECT_EQ(process_->WaitFor(10'000), 0);
  waiting.join();
}

TEST_F(FakeLlmBinaryTest, BadScript_ExitsTwoListingEveryError) {
  StartWith(
      "rules:\n  - respond: {contnet: x}\n  - match: {turn: zero}\n    respond: {content: y}\n");
  std::optional<int> code = process_->WaitFor(30'000);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 2);
  const std::string errors = ReadFileOrEmpty(Path("stderr.log"));
  EXPECT_THAT(errors, HasSubstr("fake-llm: " + Path("script.yaml") +
                                ": rules[0].respond: unknown key 'contnet'"));
  EXPECT_THAT(errors, HasSubstr("rules[1].match.turn: must be an integer"));
}

TEST_F(FakeLlmBinaryTest, RpmLimit_Answers429WithRetryAfterAndCountsInStats) {
  // One request per minute: the first is answered and the next refused unless
  // 59 s pass between them, so the outcome does not depend on timing.
  StartWith(kScript, {"--rpm", "1", "--tpm", "1000000"});
  WaitForPort();
  httplib::Result first = Chat("say hello");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->get_header_value("x-ratelimit-limit-requests"), "1");
  EXPECT_EQ(first->get_header_value("x-ratelimit-limit-tokens"), "1000000");

  // `busy` matches the scripted 429 rule, but the limit answers before any rule.
  httplib::Result refused = Chat("busy?");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 429);
  const int retry_after = std::stoi(refused->get_header_value("Retry-After"));
  EXPECT_GE(retry_after, 1);
  EXPECT_LE(retry_after, 60);
  const Json error = (*ParseJson(refused->body))["error"];
  EXPECT_THAT(error["message"].get<std::string>(),
              HasSubstr("Rate limit reached for requests per minute (limit 1)"));
  EXPECT_EQ(error["type"], "requests");
  EXPECT_EQ(error["code"], "rate_limit_exceeded");

  httplib::Result stats = client_->Get("/stats");
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->status, 200);
  EXPECT_EQ(*ParseJson(stats->body),
            *ParseJson(R"({"requests": 2, "admitted": 1, "rate_limited": 1})"));
  std::vector<std::string> lines =
      absl::StrSplit(ReadFileOrEmpty(Path("requests.jsonl")), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  const Json logged = *ParseJson(lines[1]);
  EXPECT_EQ(logged["status"], 429);
  EXPECT_EQ(logged["rule_name"], "rate-limit");
}

TEST_F(FakeLlmBinaryTest, BadRateLimitFlags_ExitTwoNamingTheFlag) {
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--rpm", "-1"}, {"--tpm", "lots"}, {"--rpm", "nan"}}) {
    StartWith(kScript, {flag, value});
    std::optional<int> code = process_->WaitFor(30'000);
    ASSERT_TRUE(code.has_value()) << flag << " " << value;
    EXPECT_EQ(*code, 2) << flag << " " << value;
    EXPECT_THAT(ReadFileOrEmpty(Path("stderr.log")),
                HasSubstr("fake-llm: " + flag + " " + value + ": expected a number >= 0"));
  }
}

}  // namespace
}  // namespace taskboard::fake_llm
