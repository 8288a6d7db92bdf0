#include "scheduler/engine/approvals/approvals.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/approval_task.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/runs/runs_fixture.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::RunsFixture;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string Gate(const std::string& on_timeout) {
  return R"({"name": "gate", "phases": [
      {"id": "ok", "type": "approval", "prompt": "go?", "timeoutSeconds": 60,
       "approvers": ["alice"], "onTimeout": ")" +
         on_timeout + R"("},
      {"id": "next", "agent": "coder", "task": "after", "dependsOn": ["ok"]}]})";
}

class RecordingNotifier final : public ApprovalNotifier {
 public:
  // Notify runs as an effect: the event's task must already be in the store
  // as the event says (written, then told).
  explicit RecordingNotifier(store::Store* store) : store_(store) {}
  void Notify(ApprovalEvent event) override {
    absl::StatusOr<v1::GetTaskResponse> stored = ReadTask(*store_, event.run_id, event.step_id);
    written.push_back(stored.ok() && stored->task().approval().has_decision() ==
                                         (event.kind == ApprovalEvent::Kind::kDecided));
    kinds.push_back(event.kind);
    run_ids.push_back(event.run_id);
  }
  std::vector<ApprovalEvent::Kind> kinds;
  std::vector<std::string> run_ids;
  std::vector<bool> written;

 private:
  store::Store* store_;
};

// Approvals over the runs component: the fixture's commit shows the
// approval tasks it writes to Approvals (the CommitObserver), as the
// engine's commit does.
class ApprovalsTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = RunsFixture::kStartMs;

  ApprovalsTest() { f_.ObserveWith(&approvals_); }

  std::string StartGate(const std::string& on_timeout) { return f_.Start(Gate(on_timeout)); }
  void Commit() { f_.Commit(); }
  const store::TaskRecord& Task(const std::string& run_id, const std::string& task_id) {
    return *f_.runs().active().Find(run_id)->state->FindTask(task_id);
  }
  static ApprovalAnswer Answer(std::string decision) {
    ApprovalAnswer answer;
    answer.decision = std::move(decision);
    return answer;
  }

  RunsFixture f_;
  RecordingNotifier notifier_{&f_.store()};
  TimerQueue timers_;
  Approvals approvals_{{&f_.store(), RunLimits(), ApprovalLimits(), nullptr, &notifier_},
                       &f_.batch(),
                       &timers_,
                       &f_.runs().active()};
};

TEST_F(ApprovalsTest, Waiting_ListedAndWatched) {
  const std::string run_id = StartGate("approve");
  ASSERT_TRUE(WaitsForApproval(Task(run_id, "ok")));
  std::vector<v1::PendingApproval> pending = approvals_.List(std::nullopt);
  ASSERT_THAT(pending, SizeIs(1));
  EXPECT_EQ(pending[0].run_id(), run_id);
  EXPECT_EQ(pending[0].step_id(), "ok");
  EXPECT_THAT(approvals_.List(std::string("another-tenant")), IsEmpty());
  EXPECT_EQ(approvals_.watch().pending(), 1u);
}

TEST_F(ApprovalsTest, Decide_Refused_LeavesTheTaskUntouched) {
  const std::string run_id = StartGate("approve");
  const store::TaskRecord before = Task(run_id, "ok");
  f_.batch().ClearTouched();
  // bob is no approver: refused, and the task stays as it was.
  EXPECT_THAT(approvals_.Decide(run_id, "ok", Answer("approve"), Approver{"bob", false, false}),
              StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_EQ(Task(run_id, "ok").SerializeAsString(), before.SerializeAsString());
  EXPECT_THAT(f_.batch().touched(), IsEmpty());
  // An unknown decision word, by an approver: refused, still untouched.
  EXPECT_FALSE(
      approvals_.Decide(run_id, "ok", Answer("maybe"), Approver{"alice", false, false}).ok());
  EXPECT_EQ(Task(run_id, "ok").SerializeAsString(), before.SerializeAsString());
  EXPECT_THAT(approvals_.Decide(run_id, "nope", Answer("approve"), Approver{"alice", false, false}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("has no approval step 'nope'")));
}

TEST_F(ApprovalsTest, Decide_Approved_TouchesTheRunAndAnswersTheTask) {
  const std::string run_id = StartGate("approve");
  absl::StatusOr<v1::Task> decided =
      approvals_.Decide(run_id, "ok", Answer("approve"), Approver{"alice", false, false});
  ASSERT_TRUE(decided.ok()) << decided.status();
  EXPECT_EQ(decided->approval().decision().decision(), "approve");
  EXPECT_EQ(decided->approval().decision().decided_by(), "alice");
  EXPECT_THAT(f_.batch().touched(), ElementsAre(run_id));
  EXPECT_FALSE(WaitsForApproval(Task(run_id, "ok")));
}

TEST_F(ApprovalsTest, Timeout_DecidesPerOnTimeout) {
  for (const std::string on_timeout : {"approve", "reject", "fail"}) {
    const std::string run_id = StartGate(on_timeout);
    approvals_.ArmTimeout(run_id, Task(run_id, "ok"));
    ASSERT_EQ(timers_.NextDueMs(), kNow + 60'000) << on_timeout;
    RunState& run = *f_.runs().active().Find(run_id)->state;

    // Early: nothing is decided.
    approvals_.OnTimeout(run, "ok");
    EXPECT_TRUE(WaitsForApproval(Task(run_id, "ok"))) << on_timeout;

    std::optional<Timer> due = timers_.PopDue(kNow + 60'000);
    ASSERT_TRUE(due.has_value());
    EXPECT_EQ(due->kind, TimerKind::kApprovalTimeout);
    EXPECT_EQ(due->task_id, "ok");
    f_.batch().Begin(kNow + 60'000);
    approvals_.OnTimeout(run, due->task_id);
    const store::TaskRecord& task = Task(run_id, "ok");
    EXPECT_FALSE(WaitsForApproval(task)) << on_timeout;
    EXPECT_THAT(f_.batch().touched(), ::testing::Contains(run_id));
    if (on_timeout == "fail") {
      EXPECT_EQ(task.task().state(), v1::TASK_STATE_FAILED);
      EXPECT_THAT(task.task().error(), HasSubstr("no decision within the approval's timeout"));
    } else {
      EXPECT_EQ(task.task().approval().decision().decision(), on_timeout);
      EXPECT_EQ(task.task().approval().decision().decided_by(), "timeout");
    }
    Commit();
    f_.batch().Begin(kNow);
  }
}

TEST_F(ApprovalsTest, Notifier_OneCallPerEvent_AfterTheWrite_InOrder) {
  const std::string first = StartGate("approve");
  const std::string second = StartGate("approve");
  // Each run's waiting approval was announced by the commit that wrote it.
  ASSERT_THAT(notifier_.kinds, SizeIs(2));
  EXPECT_THAT(notifier_.written, ElementsAre(true, true));

  // Two decisions in one batch: nothing is told before the write, then one
  // call each, in the order the commit saw them.
  ASSERT_TRUE(
      approvals_.Decide(second, "ok", Answer("reject"), Approver{"alice", false, false}).ok());
  ASSERT_TRUE(
      approvals_.Decide(first, "ok", Answer("approve"), Approver{"alice", false, false}).ok());
  EXPECT_THAT(notifier_.kinds, SizeIs(2));
  Commit();
  ASSERT_THAT(notifier_.kinds, SizeIs(4));
  EXPECT_EQ(notifier_.kinds[2], ApprovalEvent::Kind::kDecided);
  EXPECT_EQ(notifier_.kinds[3], ApprovalEvent::Kind::kDecided);
  EXPECT_THAT(notifier_.written, ElementsAre(true, true, true, true));
  // The commit writes touched runs in id order, whatever order they were
  // decided in.
  EXPECT_THAT(std::vector<std::string>(notifier_.run_ids.begin() + 2, notifier_.run_ids.end()),
              ElementsAre(std::min(first, second), std::max(first, second)));
  EXPECT_EQ(approvals_.watch().pending(), 0u);
}

TEST_F(ApprovalsTest, Recover_AnnouncesTheWaitingOnesAgain) {
  StartGate("approve");
  ASSERT_THAT(notifier_.kinds, SizeIs(1));
  // Touched again while it waits: nothing new.
  approvals_.Recover();
  Commit();
  EXPECT_THAT(notifier_.kinds, SizeIs(1));
  // A restart's Approvals sees the loaded runs: announced once more.
  Approvals restarted({&f_.store(), RunLimits(), ApprovalLimits(), nullptr, &notifier_},
                      &f_.batch(), &timers_, &f_.runs().active());
  restarted.Recover();
  EXPECT_EQ(restarted.watch().pending(), 1u);
  Commit();
  ASSERT_THAT(notifier_.kinds, SizeIs(2));
  EXPECT_EQ(notifier_.kinds[1], ApprovalEvent::Kind::kWaiting);
}

}  // namespace
}  // namespace taskboard::engine
