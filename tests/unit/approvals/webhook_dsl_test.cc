// The flow's `approvalWebhook` in the DSL: decoded, encoded back, and an
// invalid URL reported at its path.

#include <string>

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/flow_error_lines.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::testing::ElementsAre;
using ::testing::StartsWith;

constexpr char kFlow[] = R"(
name: release
approvalWebhook: https://hooks.example.com/team-a
phases:
  - {id: ok, type: approval, prompt: "Ship?"}
)";

TEST(ApprovalWebhookDsl, Decoded_AndEncodedBack) {
  v1::FlowSpec spec = LoadValidFlow(kFlow);
  EXPECT_EQ(spec.approval_webhook(), "https://hooks.example.com/team-a");
  Json encoded = EncodeFlow(spec);
  EXPECT_EQ(encoded["approvalWebhook"], "https://hooks.example.com/team-a");
  EXPECT_EQ(LoadValidFlow(DumpJson(encoded)).SerializeAsString(), spec.SerializeAsString());
}

TEST(ApprovalWebhookDsl, Unset_LeftOutOfTheEncoding) {
  v1::FlowSpec spec = LoadValidFlow(R"({"name": "f", "phases": [{"id": "a", "agent": "x",
      "task": "t"}]})");
  EXPECT_TRUE(spec.approval_webhook().empty());
  EXPECT_FALSE(EncodeFlow(spec).contains("approvalWebhook"));
}

TEST(ApprovalWebhookDsl, NotHttp_ReportedAtItsPath) {
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "approvalWebhook": "file:///etc/passwd",
      "phases": [{"id": "a", "type": "approval", "prompt": "ok?"}]})"),
              ElementsAre(StartsWith("approvalWebhook: 'file:///etc/passwd' must start with "
                                     "http:// or https://")));
  EXPECT_THAT(LoadFlowErrors(R"({"name": "f", "approvalWebhook": 5,
      "phases": [{"id": "a", "type": "approval", "prompt": "ok?"}]})"),
              ElementsAre(StartsWith("approvalWebhook: ")));
}

}  // namespace
}  // namespace taskboard::flow
