#include "worker/agents/task_envelope.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

using ::testing::Contains;
using ::testing::Not;
using ::testing::Pair;

TEST(TaskEnvelope, MinimalAssignment_NullPriorWorkAndEmptyArgs) {
  v1::Assignment task;
  task.set_task_id("discover");
  task.set_prompt("List files");
  EXPECT_EQ(TaskEnvelope(task), Json::parse(R"({
    "task": {"id": "discover", "run_id": "", "root_run_id": "", "phase_id": "", "item_index": 0,
             "attempt": 0, "agent": "", "model": "", "role": ""},
    "prompt": "List files", "prior_work": null, "dependency_results": [], "args": {}})"));
}

TEST(TaskEnvelope, PriorWork_InProtoJson) {
  v1::Assignment task;
  task.mutable_prior_work()->set_narrative("earlier: read a.cc");
  task.mutable_prior_work()->mutable_meta()->set_policy("compact");
  const Json envelope = TaskEnvelope(task);
  EXPECT_EQ(envelope["prior_work"],
            Json::parse(R"({"narrative": "earlier: read a.cc", "meta": {"policy": "compact"}})"));
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
