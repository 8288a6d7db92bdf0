// SubmitRun's run_timeout_seconds at intake (docs/semantics.md#run-deadlines):
// carried to the engine as the caller's deadline, refused out of range with
// the field's path, as flow errors are.

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/server/flow_intake.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::server {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

v1::SubmitRunRequest Request(int32_t run_timeout_seconds) {
  v1::SubmitRunRequest request;
  request.mutable_source()->set_text(
      "name: f\nrunTimeoutSeconds: 600\nphases:\n  - {id: a, agent: coder, task: x}\n");
  request.set_run_timeout_seconds(run_timeout_seconds);
  return request;
}

TEST(FlowIntakeRunTimeout, Given_CarriedAsTheSubmittersDeadline) {
  store::MemoryStore store;
  absl::StatusOr<std::unique_ptr<engine::SavedFlows>> saved = engine::SavedFlows::Create(&store);
  ASSERT_THAT(saved.status(), IsOk());
  absl::StatusOr<engine::SubmitRequest> submit = PrepareSubmit(Request(30), "", **saved, {});
  ASSERT_THAT(submit.status(), IsOk());
  EXPECT_EQ(submit->run_timeout_seconds, 30);
  EXPECT_EQ(submit->run_timeout_source, v1::RUN_DEADLINE_SOURCE_SUBMIT);
  EXPECT_EQ(submit->spec.run_timeout_seconds(), 600);
}

TEST(FlowIntakeRunTimeout, OutOfRange_InvalidArgumentAtItsPath) {
  store::MemoryStore store;
  absl::StatusOr<std::unique_ptr<engine::SavedFlows>> saved = engine::SavedFlows::Create(&store);
  ASSERT_THAT(saved.status(), IsOk());
  for (int32_t seconds : {-1, 2592001}) {
    absl::StatusOr<engine::SubmitRequest> submit = PrepareSubmit(Request(seconds), "", **saved, {});
    EXPECT_THAT(submit.status(), StatusIs(absl::StatusCode::kInvalidArgument));
    const v1::FlowErrors errors = flow::FlowErrorsFromStatus(submit.status());
    ASSERT_EQ(errors.errors_size(), 1) << submit.status();
    EXPECT_EQ(errors.errors(0).path(), "runTimeoutSeconds");
    EXPECT_THAT(errors.errors(0).message(), HasSubstr("or 0 for no run deadline"));
  }
}

}  // namespace
}  // namespace taskboard::server
