#include "common/log/grpc_log.h"

#include <string>
#include <vector>

#include "common/log/log.h"
#include "gmock/gmock.h"
#include "grpc/support/log.h"
#include "gtest/gtest.h"

namespace taskboard::log {
namespace {

using ::testing::SizeIs;

TEST(RouteGrpcLogs, GrpcErrorLine_BecomesAJsonLineWithItsSource) {
  const LogConfig saved = CurrentConfig();
  Configure({Level::kInfo, Format::kJson, "scheduler"});
  std::vector<std::string> lines;
  SetSinkForTesting([&lines](absl::string_view line) { lines.emplace_back(line); });
  RouteGrpcLogs();
  gpr_log_verbosity_init();  // what grpc_init does: errors are emitted from then on

  gpr_log(GPR_ERROR, "bind failed: %s", "address \"in\" use");

  SetSinkForTesting(nullptr);
  Configure(saved);
  ASSERT_THAT(lines, SizeIs(1));
  absl::StatusOr<Json> line = ParseJson(lines[0]);
  ASSERT_TRUE(line.ok()) << lines[0];
  EXPECT_EQ((*line)["level"], "error");
  EXPECT_EQ((*line)["msg"], "bind failed: address \"in\" use");
  EXPECT_EQ((*line)["source"], "grpc");
  EXPECT_EQ((*line)["component"], "scheduler");
  EXPECT_TRUE((*line)["line"].is_number());
}

}  // namespace
}  // namespace taskboard::log
