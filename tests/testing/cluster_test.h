#ifndef TASKBOARD_TESTS_TESTING_CLUSTER_TEST_H_
#define TASKBOARD_TESTS_TESTING_CLUSTER_TEST_H_

// The fixture of tests that run against a real cluster: started before each
// test (the test fails with the logs if it cannot start), torn down after.

#include <utility>

#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::testing {

class ClusterTest : public ::testing::Test {
 protected:
  explicit ClusterTest(ClusterOptions options = {}) : cluster_(std::move(options)) {}
  void SetUp() override { ASSERT_THAT(cluster_.Start(), IsOk()); }

  Cluster cluster_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_CLUSTER_TEST_H_
