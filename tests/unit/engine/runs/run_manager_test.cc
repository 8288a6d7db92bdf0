#include "scheduler/engine/runs/run_manager.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RunsFixture;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kTwoTasks[] = R"({"name": "two", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"}]})";

TEST(RunManager, Submit_RepliesOnlyOnceTheBatchIsWritten_AndStartsTheDriverInTheNextBatch) {
  RunsFixture f;
  std::optional<absl::StatusOr<SubmitResult>> reply;
  f.Submit(kTwoTasks, "", [&](absl::StatusOr<SubmitResult> r) { reply = std::move(r); });
  EXPECT_FALSE(reply.has_value());
  ASSERT_EQ(f.runs().active().size(), 1u);
  EXPECT_TRUE(f.runs().active().begin()->second.awaiting_start);
  EXPECT_TRUE(f.runs().starting().any_pending());

  f.Commit();
  ASSERT_TRUE(reply.has_value());
  ASSERT_TRUE(reply->ok());
  EXPECT_FALSE((*reply)->existing);
  ActiveRun* run = f.runs().active().Find((*reply)->run_id);
  ASSERT_NE(run, nullptr);
  EXPECT_TRUE(run->state->tasks().empty());

  f.runs().starting().StartPending();
  EXPECT_FALSE(run->awaiting_start);
  EXPECT_EQ(run->state->tasks().size(), 2u);
  EXPECT_TRUE(f.batch().touched().count((*reply)->run_id) > 0);
}

TEST(RunManager, Submit_SameIdempotencyKey_AnswersTheEarlierRunAfterTheCommit) {
  RunsFixture f;
  const std::string first = f.Start(kTwoTasks, "key-1");
  std::optional<absl::StatusOr<SubmitResult>> again;
  f.Submit(kTwoTasks, "key-1", [&](absl::StatusOr<SubmitResult> r) { again = std::move(r); });
  EXPECT_FALSE(again.has_value());
  EXPECT_EQ(f.runs().active().size(), 1u);

  f.Commit();
  ASSERT_TRUE(again.has_value() && again->ok());
  EXPECT_EQ((*again)->run_id, first);
  EXPECT_TRUE((*again)->existing);
}

TEST(RunManager, Cancel_RevokesTheLeasesOfTheRunsDispatchedTasks) {
  RunsFixture f;
  const std::string run_id = f.Start(kTwoTasks);
  RunState& run = *f.runs().active().Find(run_id)->state;
  MarkDispatched(run.MutableTask("a"), "lease-a", "w1", RunsFixture::kStartMs);

  std::optional<absl::StatusOr<v1::RunStatus>> status;
  std::function<void(absl::StatusOr<v1::RunStatus>)> done = [&](auto s) { status = s; };
  f.runs().Cancel(run_id, "not needed", done);
  EXPECT_THAT(f.revoker().revoked, ElementsAre(Pair("lease-a", "not needed")));
  f.Commit();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(**status, v1::RUN_STATUS_CANCELLED);
  EXPECT_EQ(f.runs().active().Find(run_id), nullptr);
  EXPECT_THAT(f.listener().left, ElementsAre(run_id));
}

TEST(RunManager, Cancel_UnknownRun_AnswersNotFoundAfterTheCommit) {
  RunsFixture f;
  std::optional<absl::StatusOr<v1::RunStatus>> status;
  std::function<void(absl::StatusOr<v1::RunStatus>)> done = [&](auto s) { status = s; };
  f.runs().Cancel("run-nope", "", done);
  // An effect, like every answer: what it read may be in a batch not yet
  // acknowledged (docs/high-availability.md#acknowledged-writes).
  EXPECT_FALSE(status.has_value());
  f.Commit();
  ASSERT_TRUE(status.has_value());
  EXPECT_THAT(*status, StatusIs(absl::StatusCode::kNotFound));
}

TEST(RunManager, Resume_ActiveRun_AnswersAfterTheCommitThatItIsNotResumable) {
  RunsFixture f;
  const std::string run_id = f.Start(kTwoTasks);
  std::optional<absl::StatusOr<ResumeResult>> result;
  std::function<void(absl::StatusOr<ResumeResult>)> done = [&](auto r) { result = r; };
  f.runs().Resume(run_id, ResumeBudget{}, done);
  EXPECT_FALSE(result.has_value());
  f.Commit();
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(*result, StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(RunManager, Resume_CancelledRun_RunsAgainUnderItsId) {
  RunsFixture f;
  const std::string run_id = f.Start(kTwoTasks);
  std::function<void(absl::StatusOr<v1::RunStatus>)> cancelled = [](auto) {};
  f.runs().Cancel(run_id, "stop", cancelled);
  f.Commit();
  ASSERT_EQ(f.runs().active().Find(run_id), nullptr);

  std::optional<absl::StatusOr<ResumeResult>> result;
  std::function<void(absl::StatusOr<ResumeResult>)> done = [&](auto r) { result = r; };
  f.runs().Resume(run_id, ResumeBudget{}, done);
  ASSERT_NE(f.runs().active().Find(run_id), nullptr);
  f.Commit();
  ASSERT_TRUE(result.has_value() && result->ok()) << result->status();
  EXPECT_EQ((*result)->run_id, run_id);
  absl::StatusOr<store::RunRecord> stored = ReadRunRecord(f.store(), run_id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->run().status(), v1::RUN_STATUS_RUNNING);
}

TEST(RunManager, Resume_ChildRun_RefusedNamingItsParent) {
  RunsFixture f;
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(kTwoTasks);
  v1::Run parent;
  parent.set_run_id("run-parent");
  parent.set_root_run_id("run-parent");
  absl::StatusOr<std::string> child =
      f.runs().CreateRun(request, &parent, "step", RunManager::DriverStart::kNow);
  ASSERT_TRUE(child.ok());
  std::function<void(absl::StatusOr<v1::RunStatus>)> cancelled = [](auto) {};
  f.runs().Cancel(*child, "stop", cancelled);
  f.Commit();

  std::optional<absl::StatusOr<ResumeResult>> result;
  std::function<void(absl::StatusOr<ResumeResult>)> done = [&](auto r) { result = r; };
  f.runs().Resume(*child, ResumeBudget{}, done);
  EXPECT_FALSE(result.has_value());  // answered as an effect of the batch
  f.Commit();
  ASSERT_TRUE(result.has_value());
  EXPECT_THAT(*result, StatusIs(absl::StatusCode::kFailedPrecondition,
                                HasSubstr("is a child run of run-parent")));
}

}  // namespace
}  // namespace taskboard::engine
