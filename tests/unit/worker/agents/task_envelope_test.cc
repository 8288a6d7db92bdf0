#include "worker/agents/task_envelope.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

using ::testing::Contains;
using ::testing::Not;
using ::testing::Pair;

TEST(TaskEnvelope, MinimalAssignment_EmptyPriorWorkAndArgs) {
  v1::Assignment task;
  task.set_task_id("discover");
  task.set_prompt("List files");
  EXPECT_EQ(TaskEnvelope(task), Json::parse(R"({
    "task": {"id": "discover", "run_id": "", "root_run_id": "", "phase_id": "", "item_index": 0,
             "attempt": 0, "agent": "", "model": "", "role": ""},
    "prompt": "List files",
    "prior_work": {"observations": [], "narrative": "",
                   "meta": {"policy": "", "selected": 0, "available": 0, "tokens_approx": 0,
                            "fallback_reason": ""}},
    "dependency_results": [], "args": {}})"));
}

TEST(TaskEnvelope, PriorWork_ObservationsWithJsonArgsAndResults) {
  v1::Assignment task;
  v1::PriorWork& prior = *task.mutable_prior_work();
  prior.set_narrative("earlier: read a.cc");
  prior.mutable_meta()->set_policy("declared_deps_only");
  prior.mutable_meta()->set_selected(2);
  prior.mutable_meta()->set_available(5);
  prior.mutable_meta()->set_tokens_approx(40);
  v1::Observation& read = *prior.add_observations();
  read.set_seq(3);
  read.set_run_id("r1");
  read.set_task_id("scan");
  read.set_tool_name("read_file");
  read.set_args_json(R"({"path":"a.cc"})");
  read.set_result_json(R"({"content":"x"})");
  read.set_cached(true);
  read.set_cache_age_ms(900);
  read.mutable_source_task()->set_run_id("r1");
  read.mutable_source_task()->set_task_id("first");
  read.set_duration_ms(2);
  v1::Observation& failed = *prior.add_observations();
  failed.set_seq(4);
  failed.set_run_id("r1");
  failed.set_task_id("scan");
  failed.set_tool_name("read_file");
  failed.set_args_json(R"({"path":"b.cc"})");
  failed.set_error("file 'b.cc' does not exist");
  failed.mutable_ts()->set_seconds(1735689600);

  EXPECT_EQ(TaskEnvelope(task)["prior_work"], Json::parse(R"({
    "observations": [
      {"seq": 3, "run_id": "r1", "task_id": "scan", "tool": "read_file",
       "args": {"path": "a.cc"}, "result": {"content": "x"}, "error": null, "cached": true,
       "cache_age_ms": 900, "source_task": {"run_id": "r1", "task_id": "first"}, "ts": null,
       "duration_ms": 2},
      {"seq": 4, "run_id": "r1", "task_id": "scan", "tool": "read_file",
       "args": {"path": "b.cc"}, "result": null, "error": "file 'b.cc' does not exist",
       "cached": false, "cache_age_ms": 0, "source_task": null, "ts": "2025-01-01T00:00:00Z",
       "duration_ms": 0}],
    "narrative": "earlier: read a.cc",
    "meta": {"policy": "declared_deps_only", "selected": 2, "available": 5, "tokens_approx": 40,
             "fallback_reason": ""}})"));
}

TEST(TaskEnvironment, SetsIdsPromptAndArgs) {
  v1::Assignment task;
  task.set_run_id("r1");
  task.set_task_id("t1");
  task.set_attempt(3);
  task.set_prompt("hello");
  (*task.mutable_args()->mutable_fields())["dir"].set_string_value(".");
  EXPECT_THAT(
      TaskEnvironment(task),
      ::testing::ElementsAre(Pair("TASKBOARD_RUN_ID", "r1"), Pair("TASKBOARD_TASK_ID", "t1"),
                             Pair("TASKBOARD_ATTEMPT", "3"), Pair("TASKBOARD_PROMPT", "hello"),
                             Pair("TASKBOARD_ARGS_JSON", R"({"dir":"."})")));
}

TEST(TaskEnvironment, PromptTooLongForOneVariable_IsLeftOut) {
  v1::Assignment task;
  task.set_prompt(std::string(200 << 10, 'x'));
  EXPECT_THAT(TaskEnvironment(task), Not(Contains(Pair("TASKBOARD_PROMPT", ::testing::_))));
  EXPECT_EQ(TaskEnvelope(task)["prompt"].get<std::string>().size(), 200u << 10);
}

}  // namespace
}  // namespace taskboard::worker
