// A flow that leaves `agent` out runs on the scheduler's default agent
// (--default-agent, else the first registered agent), chosen at submit and
// stored in the run's spec; with no worker offering it, SubmitRun fails at
// once instead of after the scheduling timeout. Real scheduler and worker
// processes on port 0.

#include <chrono>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::AllOf;
using testing::Cluster;
using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

// A taskflow whose one phase names no agent.
constexpr char kNoAgent[] =
    R"({"name": "no-agent", "phases": [{"id": "a", "task": "echo from the default agent"}]})";

ClusterOptions Options(int workers, std::vector<std::string> scheduler_flags = {}) {
  ClusterOptions options;
  options.workers = workers;
  options.scheduler_flags = std::move(scheduler_flags);
  return options;
}

// Workers connect on their own after Start; the default agent is chosen
// among connected ones.
void WaitForOneWorker(Cluster& cluster) {
  ASSERT_THAT(cluster
                  .WaitForWorkers([](const v1::ListWorkersResponse& workers) {
                    return workers.workers_size() == 1;
                  })
                  .status(),
              IsOk());
}

// Submits `flow`, expecting a refusal that comes well before the scheduling
// timeout (20 s in these clusters).
absl::Status SubmitExpectingQuickRefusal(Cluster& cluster, const std::string& flow) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> run = cluster.Submit(flow);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  return run.status();
}

// Starts a one-worker cluster with `scheduler_flags`, waits for the worker,
// runs kNoAgent to its end.
v1::Run RunWithoutAgent(std::vector<std::string> scheduler_flags) {
  Cluster cluster(Options(1, std::move(scheduler_flags)));
  EXPECT_THAT(cluster.Start(), IsOk());
  WaitForOneWorker(cluster);
  absl::StatusOr<std::string> run_id = cluster.Submit(kNoAgent);
  EXPECT_THAT(run_id.status(), IsOk());
  if (!run_id.ok()) return {};
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id, 30'000);
  EXPECT_THAT(run.status(), IsOk());
  if (!run.ok()) return {};
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster.Logs();
  return *run;
}

TEST(DefaultAgentTest, NoWorkerAtAll_SubmitFailsAtOnceSayingWhatToDo) {
  Cluster cluster(Options(0));
  ASSERT_THAT(cluster.Start(), IsOk());
  EXPECT_THAT(SubmitExpectingQuickRefusal(cluster, R"({"task": "echo hi"})"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("leaves the agent of phases[0].agent"),
                             HasSubstr("no worker is connected"), HasSubstr("start a worker"),
                             HasSubstr("--default-agent"))));
}

TEST(DefaultAgentTest, DefaultAgentNoWorkerOffers_SubmitFailsAtOnceNamingIt) {
  Cluster cluster(Options(1, {"--default-agent", "ghost"}));
  ASSERT_THAT(cluster.Start(), IsOk());
  WaitForOneWorker(cluster);
  EXPECT_THAT(
      SubmitExpectingQuickRefusal(cluster, kNoAgent),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr("default agent 'ghost'"), HasSubstr("no connected worker offers it"),
                     HasSubstr("start a worker with agent 'ghost'"))));
}

TEST(DefaultAgentTest, PhaseWithoutAgent_RunsOnTheFirstRegisteredAgent) {
  const v1::Run run = RunWithoutAgent({});
  EXPECT_EQ(run.output(), "from the default agent\n");
  // tests/integration/agents offers echo, helper and the built-in noop:
  // by name, echo comes first.
  ASSERT_EQ(run.spec().taskflow().phases_size(), 1);
  EXPECT_EQ(run.spec().taskflow().phases(0).agent(), "echo") << "stored in the run's spec";
}

TEST(DefaultAgentTest, PhaseWithoutAgent_RunsOnTheDefaultAgentFlag) {
  const v1::Run run = RunWithoutAgent({"--default-agent", "helper"});
  ASSERT_EQ(run.spec().taskflow().phases_size(), 1);
  EXPECT_EQ(run.spec().taskflow().phases(0).agent(), "helper");
  ASSERT_EQ(run.tasks_size(), 1);
  EXPECT_EQ(run.tasks(0).agent(), "helper");
}

}  // namespace
}  // namespace taskboard
