// How the llm agent fails, across real processes: a scheduler, a worker and
// tools/fake-llm scripted to misbehave over real HTTP (rate limits, server
// errors, bodies that are not chat completions, slow answers, a model that
// never stops calling tools, tool arguments that are not JSON). Each test
// checks what a user relies on: the task ends (no hang), its error names
// what went wrong and where, the request log shows the retries the agent
// file promises, and GetTask shows the error and the execution record.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;

using Clock = std::chrono::steady_clock;

// Every run here ends within a few seconds; this only bounds a hang.
constexpr int kRunTimeoutMs = 20'000;

struct LlmAgentFile {
  std::string name;
  // Extra front-matter lines, e.g. "maxAttempts: 3\n".
  std::string fields;
};

class LlmFailureTest : public ::testing::Test {
 protected:
  // Starts fake-llm with `script`, writes one llm agent file per entry of
  // `agents` pointed at it, and starts a scheduler with one worker.
  void Start(const std::string& script, const std::vector<LlmAgentFile>& agents) {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), script);
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);
    endpoint_ = absl::StrCat("POST ", llm_->base_url(), "/chat/completions");

    const std::filesystem::path agents_dir = dir_.path() / "agents";
    std::filesystem::create_directory(agents_dir);
    for (const LlmAgentFile& agent : agents) {
      std::ofstream(agents_dir / (agent.name + ".md")) << testing::LlmAgentFileText(
          agent.name, llm_->base_url(), absl::StrCat("tools: [read_file]\n", agent.fields),
          "You answer questions.");
    }

    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents_dir.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
    std::ofstream(cluster_->dir() / "notes.md") << "remember the milk\n";
  }

  // Submits a one-phase flow (task id "ask", no scheduler retries, so every
  // request in the log comes from the agent's own attempts) and waits for
  // it to end.
  v1::Run Run(const std::string& agent, const std::string& prompt,
              const std::string& phase_fields = "") {
    absl::StatusOr<std::string> run_id = cluster_->Submit(
        absl::StrCat("name: llm-failure\nphases:\n  - id: ask\n    agent: ", agent, "\n    task: '",
                     prompt, "'\n    retries: 0\n", phase_fields));
    EXPECT_THAT(run_id.status(), IsOk());
    if (!run_id.ok()) return {};
    absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, kRunTimeoutMs);
    EXPECT_THAT(run.status(), IsOk());
    return run.ok() ? *run : v1::Run();
  }

  // The task "ask" of `run` through the v1 API, as `taskboard show` sees it.
  v1::GetTaskResponse GetTask(const v1::Run& run) {
    v1::GetTaskRequest request;
    request.set_run_id(run.run_id());
    request.set_task_id("ask");
    v1::GetTaskResponse task;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Status status = cluster_->client().GetTask(&context, request, &task);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return task;
  }

  // The fake's request log entries ({seq, status, rule_name, time_ms,
  // request}) in arrival order; with `prompt`, only those whose user message
  // (the task's prompt) holds it.
  std::vector<Json> Requests(const std::string& prompt = "") {
    std::vector<Json> entries;
    for (Json& entry : llm_->LogEntries()) {
      const Json& messages = entry["request"]["messages"];
      if (!prompt.empty() &&
          (messages.size() < 2 || !messages[1]["content"].is_string() ||
           messages[1]["content"].get<std::string>().find(prompt) == std::string::npos)) {
        continue;
      }
      entries.push_back(std::move(entry));
    }
    return entries;
  }

  // Checks that the failed task "ask" of `run` says `error_parts` in its
  // error through GetTask, and that its execution record shows the stop.
  void ExpectFailedTask(const v1::Run& run, const std::string& stop_reason, int turns,
                        const std::vector<std::string>& error_parts) {
    ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.output() << cluster_->Logs();
    const v1::GetTaskResponse task = GetTask(run);
    EXPECT_EQ(task.task().state(), v1::TASK_STATE_FAILED);
    for (const std::string& part : error_parts) {
      EXPECT_THAT(task.task().error(), HasSubstr(part));
    }
    EXPECT_TRUE(task.execution().stopped());
    EXPECT_EQ(task.execution().stop_reason(), stop_reason);
    EXPECT_EQ(task.execution().turns(), turns);
    // The conversation up to the failure: at least the system and user
    // messages the agent sent.
    ASSERT_GE(task.execution().messages_size(), 2);
    EXPECT_EQ(task.execution().messages(0).role(), "system");
    EXPECT_EQ(task.execution().messages(1).role(), "user");
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
  // "POST http://127.0.0.1:PORT/v1/chat/completions", as errors name it.
  std::string endpoint_;
};

TEST_F(LlmFailureTest, RateLimitedOnce_WaitsRetryAfterThenSucceeds) {
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: rate-limited
    match: {times: 1}
    respond: {error: {status: 429, retry_after_seconds: 1}}
  - name: answer
    respond: {content: answered after the rate limit}
)",
                                {{"model", ""}}));
  const v1::Run run = Run("model", "Summarise the notes.");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_->Logs();
  EXPECT_EQ(run.output(), "answered after the rate limit");

  const std::vector<Json> requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["status"], 429);
  EXPECT_EQ(requests[1]["status"], 200);
  EXPECT_EQ(requests[1]["rule_name"], "answer");
  // The retry is the same request, sent no sooner than Retry-After asked
  // (the backoff alone could have been shorter). 50 ms of slack for the
  // millisecond clock.
  EXPECT_EQ(requests[1]["request"]["messages"], requests[0]["request"]["messages"]);
  EXPECT_GE(requests[1]["time_ms"].get<int64_t>() - requests[0]["time_ms"].get<int64_t>(), 950);

  const v1::GetTaskResponse task = GetTask(run);
  EXPECT_EQ(task.task().error(), "");
  EXPECT_EQ(task.execution().turns(), 1);
  EXPECT_FALSE(task.execution().stopped());
}

TEST_F(LlmFailureTest, ServerErrorPersists_FailsNamingStatusAndEndpointAfterMaxAttempts) {
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: broken
    respond: {error: {status: 500}}
)",
                                {{"model", "maxAttempts: 3\n"}}));
  const v1::Run run = Run("model", "Summarise the notes.");
  ExpectFailedTask(run, "error", 0,
                   {"llm agent 'model'", endpoint_, "HTTP 500 after 3 attempts",
                    "fake-llm: scripted error 500", "try again later"});
  // maxAttempts tries, and no more (the phase has no scheduler retries).
  const std::vector<Json> requests = Requests();
  ASSERT_EQ(requests.size(), 3u);
  for (const Json& request : requests) EXPECT_EQ(request["status"], 500);
}

TEST_F(LlmFailureTest, ServerErrorOnce_RetriesAndSucceeds) {
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: hiccup
    match: {times: 1}
    respond: {error: {status: 503}}
  - name: answer
    respond: {content: fine now}
)",
                                {{"model", "maxAttempts: 2\n"}}));
  const v1::Run run = Run("model", "Summarise the notes.");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_->Logs();
  EXPECT_EQ(run.output(), "fine now");
  const std::vector<Json> requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["status"], 503);
  EXPECT_EQ(requests[1]["status"], 200);
}

TEST_F(LlmFailureTest, AnswerNotAChatCompletion_FailsSayingWhatWasWrongWithoutRetrying) {
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - match: {last_user_contains: truncated}
    respond: {malformed: true}
  - match: {last_user_contains: no-choices}
    respond: {raw_body: {id: chatcmpl-odd, object: chat.completion}}
  - match: {last_user_contains: html}
    respond: {raw_body: '<html>502 Bad Gateway</html>'}
)",
                                {{"model", ""}, {"plain", "stream: false\n"}}));
  struct Case {
    std::string agent;
    std::string prompt;
    std::string what;
  };
  const std::vector<Case> cases = {
      {"model", "truncated streamed", "a streamed chunk is not a JSON object"},
      {"plain", "truncated whole", "the response is not valid JSON"},
      {"model", "no-choices", R"(the response has no `choices`: {"id":"chatcmpl-odd")"},
      {"plain", "html page", "the response is not valid JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.prompt);
    const v1::Run run = Run(c.agent, c.prompt);
    ExpectFailedTask(run, "error", 0,
                     {absl::StrCat("llm agent '", c.agent, "'"), endpoint_, c.what,
                      "is base_url an OpenAI-compatible endpoint"});
    // A 200 is an answer, even a broken one: not retried.
    EXPECT_EQ(Requests(c.prompt).size(), 1u);
  }
}

TEST_F(LlmFailureTest, AnswerSlowerThanRequestTimeout_FailsWithTimeoutWithoutRetrying) {
  // The fake would answer after 10 s; the agent gives each request 1 s.
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: slow
    respond: {content: too late, delay_ms: 10000}
)",
                                {{"model", "requestTimeoutSeconds: 1\nmaxAttempts: 3\n"}}));
  const Clock::time_point start = Clock::now();
  const v1::Run run = Run("model", "Summarise the notes.");
  const auto elapsed = Clock::now() - start;
  ExpectFailedTask(run, "error", 0,
                   {"llm agent 'model'", endpoint_, "no complete response within 1s",
                    "raise requestTimeoutSeconds"});
  // Timeouts are not retried (maxAttempts is for 429 and 5xx answers), and
  // the agent gave up long before the fake would have answered.
  EXPECT_EQ(Requests().size(), 1u);
  EXPECT_LT(elapsed, std::chrono::seconds(8));
}

TEST_F(LlmFailureTest, AnswerSlowerThanAgentTimeout_FailsWithStopReasonTimeout) {
  // The request timeout is the default 300 s; the agent file's timeoutSeconds
  // bounds the whole task.
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: slow
    respond: {content: too late, delay_ms: 10000}
)",
                                {{"model", "timeoutSeconds: 2\n"}}));
  const Clock::time_point start = Clock::now();
  const v1::Run run = Run("model", "Summarise the notes.");
  const auto elapsed = Clock::now() - start;
  ExpectFailedTask(run, "timeout", 0, {"llm agent 'model' timed out after 2s", endpoint_});
  EXPECT_EQ(Requests().size(), 1u);
  EXPECT_LT(elapsed, std::chrono::seconds(8));
}

TEST_F(LlmFailureTest, AnswerSlowerThanPhaseTimeout_FailsWithTheSchedulersTimeout) {
  // A phase's timeoutSeconds is enforced by the scheduler too, which gets
  // there first: the error is its own, and the task ends just as promptly.
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: slow
    respond: {content: too late, delay_ms: 10000}
)",
                                {{"model", ""}}));
  const Clock::time_point start = Clock::now();
  const v1::Run run = Run("model", "Summarise the notes.", "    timeoutSeconds: 2\n");
  const auto elapsed = Clock::now() - start;
  ASSERT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.output() << cluster_->Logs();
  const v1::GetTaskResponse task = GetTask(run);
  EXPECT_EQ(task.task().state(), v1::TASK_STATE_FAILED);
  EXPECT_EQ(task.task().error(), "timed out after 2s (timeoutSeconds)");
  EXPECT_EQ(Requests().size(), 1u);
  EXPECT_LT(elapsed, std::chrono::seconds(8));
  // The worker's report after the cancel still brings the conversation so
  // far; it lands just after the run ends, so wait for it.
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  v1::GetTaskResponse recorded = GetTask(run);
  while (recorded.execution().stop_reason().empty() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    recorded = GetTask(run);
  }
  EXPECT_TRUE(recorded.execution().stopped());
  EXPECT_EQ(recorded.execution().stop_reason(), "timeout");
  ASSERT_GE(recorded.execution().messages_size(), 2);
  EXPECT_THAT(recorded.execution().messages(1).content(), HasSubstr("Summarise the notes."));
}

TEST_F(LlmFailureTest, ModelNeverStopsCallingTools_FailsWithMaxTurnsAfterThatManyRequests) {
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: again
    respond:
      tool_calls:
        - name: read_file
          arguments: {path: notes.md}
)",
                                {{"model", "maxTurns: 3\n"}}));
  const v1::Run run = Run("model", "Summarise the notes.");
  ExpectFailedTask(run, "max_turns", 3,
                   {"llm agent 'model' stopped after 3 turns (its maxTurns) with the model still "
                    "calling tools",
                    "raise maxTurns in"});
  EXPECT_EQ(Requests().size(), 3u);
  // system, user, then an assistant tool call and its tool answer per turn.
  const v1::GetTaskResponse task = GetTask(run);
  ASSERT_EQ(task.execution().messages_size(), 8);
  EXPECT_EQ(task.execution().messages(6).role(), "assistant");
  EXPECT_EQ(task.execution().messages(7).role(), "tool");
  EXPECT_THAT(task.execution().messages(7).content(), HasSubstr("remember the milk"));
}

TEST_F(LlmFailureTest, ToolArgumentsNotJson_ErrorGoesBackToTheModelWhichRecovers) {
  ASSERT_NO_FATAL_FAILURE(Start(R"(rules:
  - name: bad-arguments
    match: {has_tool_results: false}
    respond:
      tool_calls:
        - name: read_file
          arguments: 'path=notes.md'
  - name: recovered
    match: {tool_result_contains: must be a JSON object}
    respond: {content: my arguments were wrong}
)",
                                {{"model", "maxAttempts: 1\n"}}));
  const v1::Run run = Run("model", "Summarise the notes.");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_->Logs();
  EXPECT_EQ(run.output(), "my arguments were wrong");

  // The second request carries the tool error as the answer to the call.
  const std::vector<Json> requests = Requests();
  ASSERT_EQ(requests.size(), 2u);
  const Json& tool_message = requests[1]["request"]["messages"].back();
  EXPECT_EQ(tool_message["role"], "tool");
  EXPECT_EQ(tool_message["tool_call_id"],
            requests[1]["request"]["messages"][2]["tool_calls"][0]["id"]);
  absl::StatusOr<Json> result = ParseJson(tool_message["content"].get<std::string>());
  ASSERT_THAT(result.status(), IsOk());
  EXPECT_THAT((*result)["error"].get<std::string>(),
              AllOf(HasSubstr("the arguments of tool 'read_file' must be a JSON object"),
                    HasSubstr("invalid JSON")));

  // The call never ran, so the ledger has nothing; the conversation has it.
  const v1::GetTaskResponse task = GetTask(run);
  EXPECT_EQ(task.tool_calls_size(), 0);
  EXPECT_EQ(task.execution().turns(), 2);
  ASSERT_EQ(task.execution().messages_size(), 5);
  EXPECT_THAT(task.execution().messages(3).content(), HasSubstr("must be a JSON object"));
}

}  // namespace
}  // namespace taskboard
