// A 100,000-deep document (`[` repeated, 100 KB: below every size limit)
// sent through each way into the scheduler is one clear error naming the
// depth limit, and the same scheduler then completes a normal run.

#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "tests/testing/agents_dir.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/plans.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

const std::string& Hostile() {
  static const std::string* text = new std::string(100'000, '[');
  return *text;
}

// `deep` answers every prompt with the hostile document; the `deep_json`
// tool returns it. Both are what a hostile model, program or server sends.
std::string AgentsDir() {
  return testing::IntegrationAgentsWith({{"deep.yaml", R"(name: deep
command: ["sh", "-c", "head -c 100000 /dev/zero | tr '\\0' '['"]
)"}});
}

std::string ToolsDir() {
  static testing::TempDir dir;
  static const bool made = [] {
    std::ofstream(dir.path() / "deep_json.yaml") << R"(name: deep_json
description: Prints 100,000 '[' on stdout
command: ["sh", "-c", "head -c 100000 /dev/zero | tr '\\0' '['"]
cacheable: true
)";
    return true;
  }();
  (void)made;
  return dir.path().string();
}

ClusterOptions OneWorker() {
  ClusterOptions options;
  options.workers = 1;
  options.agents_dir = AgentsDir();
  options.worker_flags = {"--tools", ToolsDir()};
  return options;
}

// The errors of a run's tasks in `role`, one per line.
std::string TaskErrors(const v1::Run& run, absl::string_view role) {
  std::string errors;
  for (const v1::Task& task : run.tasks()) {
    if (task.role() == role) absl::StrAppend(&errors, task.error(), "\n");
  }
  return errors;
}

class DeepInputTest : public testing::ClusterTest {
 protected:
  DeepInputTest() : ClusterTest(OneWorker()) {}
};

TEST_F(DeepInputTest, FlowTextAsJson_IsInvalidArgumentNamingTheLimit) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(absl::StrCat("{\"name\": ", Hostile()));
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(run_id.status().message()), HasSubstr("limit of 64 levels at $.name"));
  EXPECT_THAT(std::string(run_id.status().message()), HasSubstr("--max-json-depth"));
  ExpectStillServing();
}

TEST_F(DeepInputTest, FlowTextAsYaml_IsInvalidArgumentNamingTheLimit) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(absl::StrCat("name: ", Hostile()));
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(run_id.status().message()), HasSubstr("--max-json-depth"));
  ExpectStillServing();
}

TEST_F(DeepInputTest, ArgDefaultTooDeepToStore_IsRefusedAtIntake) {
  // 40 levels of objects parse (under 64) but a Struct that deep could not be
  // decoded back from the store or by clients: refused now, not at replay.
  std::string deep = "1";
  for (int i = 0; i < 40; ++i) deep = absl::StrCat("{\"k\": ", deep, "}");
  absl::StatusOr<std::string> run_id = cluster_.Submit(
      absl::StrCat(R"({"name": "deep-default", "args": {"x": {"default": )", deep,
                   R"(}}, "phases": [{"id": "a", "agent": "echo", "task": "echo hi"}]})"));
  EXPECT_THAT(run_id.status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(std::string(run_id.status().message()), HasSubstr("nest too deeply"));
  ExpectStillServing();
}

// Hand-encoded SubmitRunRequest whose args Struct nests 100,000 lists: no
// client library would build it (their encoders recurse), a hostile one can.
std::string DeepArgsRequest() {
  auto varint = [](std::string& out, uint64_t value) {
    while (value >= 0x80) {
      out.push_back(static_cast<char>((value & 0x7f) | 0x80));
      value >>= 7;
    }
    out.push_back(static_cast<char>(value));
  };
  auto field = [&](int number, const std::string& body) {
    std::string out;
    varint(out, (static_cast<uint64_t>(number) << 3) | 2);
    varint(out, body.size());
    return out + body;
  };
  // Value{list_value(6): ListValue{values(1): Value{...}}}. Each level's
  // header holds the size of everything inside it, so the headers are made
  // innermost first and written outermost first (prepending would copy
  // gigabytes).
  std::vector<std::string> headers;
  size_t inner = 0;
  for (int i = 0; i < 100'000; ++i) {
    std::string list_header;
    varint(list_header, (1 << 3) | 2);
    varint(list_header, inner);
    const size_t list_size = list_header.size() + inner;
    std::string value_header;
    varint(value_header, (6 << 3) | 2);
    varint(value_header, list_size);
    inner = value_header.size() + list_size;
    headers.push_back(value_header + list_header);
  }
  std::string value;
  value.reserve(inner);
  for (auto it = headers.rbegin(); it != headers.rend(); ++it) value += *it;
  // Struct{fields(1): entry{key(1): "x", value(2): value}}.
  const std::string args = field(1, field(1, "x") + field(2, value));
  v1::SubmitRunRequest request;
  request.mutable_source()->set_text(
      "name: n\nphases:\n  - id: a\n    agent: echo\n    task: hi\n");
  return request.SerializeAsString() + field(4, args);  // SubmitRunRequest.args = 4
}

TEST_F(DeepInputTest, RunArgsStructHundredThousandDeep_IsRefusedAndTheSchedulerServes) {
  const std::string bytes = DeepArgsRequest();
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::GenericStub stub(testing::TestChannel(cluster_.address()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&context, "/taskboard.v1.Scheduler/SubmitRun", grpc::StubOptions(), &request,
                 &response, [&](grpc::Status s) {
                   status = std::move(s);
                   done.Notify();
                 });
  done.WaitForNotification();
  // gRPC's protobuf decoder stops at 100 nested messages before Taskboard
  // sees the request (gRPC 1.51 answers UNIMPLEMENTED for a callback method
  // whose request does not parse).
  EXPECT_FALSE(status.ok());
  std::cerr << "refused with " << status.error_code() << ": " << status.error_message() << "\n";
  ExpectStillServing();
}

TEST_F(DeepInputTest, AgentOutputReadAsJson_FailsTheTaskAndTheRunEnds) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(absl::StrCat(
      "name: deep-output\nphases:\n  - id: a\n    agent: echo\n    output: json\n"
      "    task: \"echo ",
      Hostile(),
      "\"\n  - id: b\n    agent: echo\n    dependsOn: [a]\n    task: \"echo {steps.a.json}\"\n"));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_NE(run->status(), v1::RUN_STATUS_RUNNING);
  ExpectStillServing();
}

TEST_F(DeepInputTest, PlannerReplyHundredThousandDeep_FailsThePlanClearly) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(
      absl::StrCat("name: deep-plan\nkind: plan_and_execute\nplanAndExecute:\n  goal: \"echo ",
                   Hostile(), "\"\n  plannerAgent: echo\n  executorAgent: echo\n"));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run->error(), HasSubstr("JSON nested deeper than the limit of 64 levels at $"))
      << run->error();
  ExpectStillServing();
}

// A tool whose output is 100,000 '[': the worker keeps what does not parse
// as a JSON string, the scheduler records and caches it (cacheIf reads the
// result), the next task gets it as prior work, and the run completes.
TEST_F(DeepInputTest, ToolResultHundredThousandDeep_IsKeptAsTextAndTheRunCompletes) {
  v1::Run run = Run(R"(
name: deep-tool
toolCache:
  tools:
    deep_json: {cacheIf: "result.ok"}
phases:
  - id: a
    agent: echo
    task: tool deep_json
  - id: b
    agent: echo
    dependsOn: [a]
    task: envelope
)");
  ASSERT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
  absl::StatusOr<std::vector<v1::Observation>> calls = cluster_.ToolCalls(run.run_id(), "a");
  ASSERT_THAT(calls.status(), IsOk());
  ASSERT_EQ(calls->size(), 1u);
  EXPECT_EQ((*calls)[0].result_json(), Json(Hostile()).dump());
  ExpectStillServing();
}

// A supervisor whose reviewer answers 100,000 '[': an invalid review naming
// the depth limit; with nothing accepted the run fails, and the scheduler
// serves on.
TEST_F(DeepInputTest, ReviewerReplyHundredThousandDeep_IsAnInvalidReview) {
  v1::Run run = Run(absl::StrCat(R"({"name": "deep-review", "kind": "supervisor",
      "supervisor": {"plannerAgent": "echo", "workerAgent": "echo", "reviewerAgent": "deep",
                     "maxIterations": 1, "goal": )",
                                 Json(testing::PlanOf(1)).dump(), "}}"));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(TaskErrors(run, "reviewer"),
              HasSubstr("the review is invalid: review is invalid (1 error):\n  output holds no "
                        "JSON within the nesting limit (JSON nested deeper than the limit of 64 "
                        "levels at $"))
      << cluster_.Logs();
  ExpectStillServing();
}

// A plan-and-execute run whose LLM evaluator answers 100,000 '[': an invalid
// decision naming the depth limit.
TEST_F(DeepInputTest, EvaluatorReplyHundredThousandDeep_IsAnInvalidEvaluation) {
  v1::Run run = Run(absl::StrCat(R"({"name": "deep-evaluation", "kind": "plan_and_execute",
      "planAndExecute": {"plannerAgent": "echo", "executorAgent": "echo", "evaluator": "llm",
                         "evaluatorAgent": "deep", "maxIterations": 1, "goal": )",
                                 Json(testing::PlanOf(1)).dump(), "}}"));
  EXPECT_NE(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(TaskErrors(run, "evaluator"),
              HasSubstr("the decision is invalid: evaluator decision is invalid (1 error):\n  "
                        "output holds no JSON within the nesting limit (JSON nested deeper than "
                        "the limit of 64 levels at $"))
      << cluster_.Logs();
  ExpectStillServing();
}

}  // namespace
}  // namespace taskboard
