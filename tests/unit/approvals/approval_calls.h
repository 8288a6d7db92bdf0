#ifndef TASKBOARD_TESTS_UNIT_APPROVALS_APPROVAL_CALLS_H_
#define TASKBOARD_TESTS_UNIT_APPROVALS_APPROVAL_CALLS_H_

// The engine's approval calls as plain functions for tests on EngineHarness:
// each runs one engine turn and returns the answer.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "scheduler/engine/engine.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine::testing {

inline absl::StatusOr<v1::Task> DecideApproval(EngineHarness& h, const std::string& run_id,
                                               const std::string& step, ApprovalAnswer answer,
                                               Approver who = {"alice", false, false}) {
  std::optional<absl::StatusOr<v1::Task>> result;
  h.engine().DecideApproval(run_id, step, std::move(answer), std::move(who),
                            [&](absl::StatusOr<v1::Task> task) { result = std::move(task); });
  h.RunOnce();
  EXPECT_TRUE(result.has_value());
  return result.value_or(absl::InternalError("no reply"));
}

inline ApprovalAnswer Answer(std::string decision, std::string comment = "",
                             std::string choice = "") {
  ApprovalAnswer answer;
  answer.decision = std::move(decision);
  answer.comment = std::move(comment);
  answer.choice = std::move(choice);
  return answer;
}

// `tenant`: only the approvals of that tenant's runs; nullopt: every run's.
inline std::vector<v1::PendingApproval> PendingApprovals(
    EngineHarness& h, std::optional<std::string> tenant = std::nullopt) {
  std::vector<v1::PendingApproval> listed;
  h.engine().ListApprovals(std::move(tenant),
                           [&](std::vector<v1::PendingApproval> rows) { listed = rows; });
  h.RunOnce();
  return listed;
}

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_APPROVALS_APPROVAL_CALLS_H_
