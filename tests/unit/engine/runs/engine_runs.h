#ifndef TASKBOARD_TESTS_UNIT_ENGINE_RUNS_ENGINE_RUNS_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_RUNS_ENGINE_RUNS_H_

// What the run tests that drive the whole Engine share
// (run_manager_engine_test.cc, run_recovery_engine_test.cc): two flows and
// the checks of a run's event log.

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::engine::testing {

inline constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "write"},
    {"id": "b", "agent": "coder", "task": "review: {steps.a.output}", "dependsOn": ["a"]}]})";

// a and b in parallel, then c.
inline constexpr char kDiamond[] = R"({"name": "diamond", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"},
    {"id": "c", "agent": "coder", "task": "C {steps.a.output} {steps.b.output}",
     "dependsOn": ["a", "b"]}]})";

inline int CountFinished(const std::vector<v1::RunEvent>& events) {
  int finished = 0;
  for (const v1::RunEvent& event : events) finished += event.has_run_finished() ? 1 : 0;
  return finished;
}

// Seqs are 1..N without gaps, run_started first and run_finished last.
inline void ExpectWellFormedLog(const std::vector<v1::RunEvent>& events,
                                const std::string& run_id) {
  ASSERT_FALSE(events.empty());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].seq(), static_cast<int64_t>(i + 1)) << "event " << i;
    EXPECT_EQ(events[i].run_id(), run_id);
  }
  EXPECT_TRUE(events.front().has_run_started());
  EXPECT_TRUE(events.back().has_run_finished());
}

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_RUNS_ENGINE_RUNS_H_
