#ifndef TASKBOARD_TESTS_TESTING_CLUSTER_TEST_H_
#define TASKBOARD_TESTS_TESTING_CLUSTER_TEST_H_

// The fixture of tests that run against a real cluster: started before each
// test (the test fails with the logs if it cannot start), torn down after.

#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::testing {

class ClusterTest : public ::testing::Test {
 protected:
  explicit ClusterTest(ClusterOptions options = {}) : cluster_(std::move(options)) {}
  void SetUp() override { ASSERT_THAT(cluster_.Start(), IsOk()); }

  // Submits DSL text and waits for the run to finish; a failure to submit or
  // to finish fails the test (with the logs) and returns an empty Run.
  v1::Run Run(const std::string& flow) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow);
    EXPECT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    if (!run_id.ok()) return {};
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk());
    return run.ok() ? *run : v1::Run();
  }

  // After a refusal: the scheduler is alive and still completes a normal run.
  void ExpectStillServing() {
    v1::Run run = Run(R"({"name": "normal", "phases": [{"id": "a", "agent": "echo",
        "task": "echo still here"}]})");
    EXPECT_EQ(run.status(), v1::RUN_STATUS_COMPLETED) << run.error() << cluster_.Logs();
    EXPECT_EQ(run.output(), "still here\n");
    EXPECT_TRUE(cluster_.scheduler()->Running()) << cluster_.Logs();
  }

  Cluster cluster_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_CLUSTER_TEST_H_
