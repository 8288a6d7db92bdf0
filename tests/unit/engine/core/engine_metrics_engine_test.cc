// The engine's Prometheus hooks (engine_metrics.h): a small run read back
// through the registry's text exposition, as a scrape would see it.

#include <optional>
#include <string>
#include <vector>

#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/core/engine_metrics.h"
#include "tests/testing/prometheus_text.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::Optional;
using ::testing::SizeIs;

constexpr char kTwoIndependent[] = R"({"name": "two", "phases": [
    {"id": "a", "agent": "coder", "task": "A"},
    {"id": "b", "agent": "coder", "task": "B"}]})";

constexpr char kReadArgs[] = R"({"path":"README.md"})";
constexpr char kReadResult[] = R"({"content":"# Taskboard"})";

class EngineMetricsTest : public ::testing::Test {
 protected:
  EngineOptions Options() {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.metrics = &metrics_;
    return options;
  }

  std::optional<double> Sample(const std::string& series) const {
    return taskboard::testing::SampleValue(metrics::SerializeTextFormat(registry_.Collect()),
                                           series);
  }

  metrics::Registry registry_;
  EngineMetrics metrics_{registry_};
  EngineHarness h_{Options()};
};

TEST_F(EngineMetricsTest, SmallRun_CountsByAgentAndKind_QueueDrainsToZero) {
  std::string run = h_.Submit(kTwoIndependent);
  EXPECT_THAT(Sample(R"(taskboard_scheduler_runs_submitted_total{kind="taskflow"})"),
              Optional(1.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_ready_queue_depth{agent="coder"})"), Optional(2.0));
  h_.Advance(3'000);
  EXPECT_THAT(Sample("taskboard_scheduler_oldest_ready_task_age_seconds"), Optional(3.0));

  TestWorker w = h_.Connect("w1", {"coder"}, 2);
  std::vector<v1::Assignment> assignments = h_.TakeAssignments(w);
  ASSERT_THAT(assignments, SizeIs(2));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_dispatched_total{agent="coder"})"),
              Optional(2.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_ready_queue_depth{agent="coder"})"), Optional(0.0));
  EXPECT_THAT(Sample("taskboard_scheduler_oldest_ready_task_age_seconds"), Optional(0.0));
  EXPECT_THAT(Sample("taskboard_scheduler_connected_workers"), Optional(1.0));
  EXPECT_THAT(Sample("taskboard_scheduler_free_slots"), Optional(0.0));

  h_.clock().Advance(2'000);
  for (const v1::Assignment& assignment : assignments) h_.Finish(w, assignment, true, "done");

  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_completed_total{agent="coder"})"), Optional(2.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_failed_total{agent="coder"})"), Optional(0.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_task_duration_seconds_count{agent="coder"})"),
              Optional(2.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_task_duration_seconds_sum{agent="coder"})"),
              Optional(4.0));
  EXPECT_THAT(
      Sample(R"(taskboard_scheduler_runs_finished_total{kind="taskflow",status="completed"})"),
      Optional(1.0));
  EXPECT_THAT(Sample("taskboard_scheduler_store_commit_latency_seconds_count"),
              Optional(::testing::Gt(0.0)));
  EXPECT_THAT(Sample("taskboard_scheduler_store_written_bytes_total"),
              Optional(::testing::Gt(0.0)));
}

TEST_F(EngineMetricsTest, FailingTaskWithOneRetry_CountedRetriedThenFailed) {
  h_.Submit(R"({"name": "f", "phases": [
      {"id": "a", "agent": "coder", "task": "A", "retries": 1}]})");
  TestWorker w = h_.Connect("w1", {"coder"});
  h_.Finish(w, h_.OnlyAssignment(w), false, "oops");
  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_retried_total{agent="coder"})"), Optional(1.0));

  h_.Advance(1'000);  // the backoff
  h_.Finish(w, h_.OnlyAssignment(w), false, "oops again");

  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_failed_total{agent="coder"})"), Optional(1.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_dispatched_total{agent="coder"})"),
              Optional(2.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_runs_finished_total{kind="taskflow",status="failed"})"),
              Optional(1.0));
}

TEST_F(EngineMetricsTest, CacheableLookup_MissThenHit_CountedByOutcome) {
  v1::ToolDeclaration read_file;
  read_file.set_name("read_file");
  read_file.set_cacheable(true);
  read_file.set_default_ttl_ms(60'000);
  h_.Submit(kTwoIndependent);
  TestWorker w = h_.Connect("w1", {"coder"}, 2, {}, {read_file});
  std::vector<v1::Assignment> assignments = h_.TakeAssignments(w);
  ASSERT_THAT(assignments, SizeIs(2));

  h_.Lookup(w, assignments[0], "q1", "read_file", kReadArgs);
  std::vector<v1::ToolDecision> miss = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(miss, SizeIs(1));
  h_.Observe(w, assignments[0], "read_file", kReadArgs, kReadResult, miss[0].call_id());
  h_.Lookup(w, assignments[1], "q2", "read_file", kReadArgs);
  std::vector<v1::ToolDecision> hit = EngineHarness::Decisions(w.channel->Take());
  ASSERT_THAT(hit, SizeIs(1));
  ASSERT_EQ(hit[0].outcome(), v1::ToolDecision::OUTCOME_HIT);

  EXPECT_THAT(Sample(R"(taskboard_scheduler_tool_cache_lookups_total{outcome="miss"})"),
              Optional(1.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_tool_cache_lookups_total{outcome="hit"})"),
              Optional(1.0));
  EXPECT_THAT(Sample("taskboard_scheduler_tool_cache_entries"), Optional(1.0));
  EXPECT_THAT(Sample("taskboard_scheduler_ledger_appends_total"), Optional(1.0));
}

TEST_F(EngineMetricsTest, PriorWorkFromTheLedgerCache_HitsAndBytesReported) {
  h_.Submit(R"({"name": "chain", "phases": [
      {"id": "a", "agent": "coder", "task": "explore"},
      {"id": "b", "agent": "coder", "task": "build on a", "dependsOn": ["a"]}]})");
  TestWorker w = h_.Connect("w1", {"coder"});
  v1::Assignment a = h_.OnlyAssignment(w);
  h_.Observe(w, a, "read_file", kReadArgs, kReadResult);
  h_.Finish(w, a, true, "explored");
  ASSERT_THAT(h_.OnlyAssignment(w).prior_work().observations(), SizeIs(1));

  // The call went into the cache when it was appended; b's selection hit it.
  EXPECT_THAT(Sample(R"(taskboard_scheduler_ledger_cache_lookups_total{outcome="hit"})"),
              Optional(1.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_ledger_cache_lookups_total{outcome="miss"})"),
              Optional(0.0));
  std::optional<double> bytes = Sample("taskboard_scheduler_ledger_cache_bytes");
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(*bytes, 0.0);
}

TEST_F(EngineMetricsTest, WorkerDisconnects_LeaseLostCountedForTheAgent) {
  h_.Submit(kTwoIndependent);
  TestWorker w = h_.Connect("w1", {"coder"}, 1);
  ASSERT_THAT(h_.TakeAssignments(w), SizeIs(1));

  h_.Disconnect(w);
  h_.Advance(31'000);  // past the lease timeout

  EXPECT_THAT(Sample(R"(taskboard_scheduler_tasks_lease_lost_total{agent="coder"})"),
              Optional(1.0));
  EXPECT_THAT(Sample(R"(taskboard_scheduler_ready_queue_depth{agent="coder"})"), Optional(2.0));
  EXPECT_THAT(Sample("taskboard_scheduler_connected_workers"), Optional(0.0));
}

}  // namespace
}  // namespace taskboard::engine
