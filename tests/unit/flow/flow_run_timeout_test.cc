// The flow-level `runTimeoutSeconds` (docs/flow-dsl.md §2.2): the whole
// run's deadline, decoded beside (and apart from) the per-task
// `timeoutSeconds`, bounded, validated when sent as a proto, encoded back.

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::FlowErrorLines;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadFlowErrors;
using ::taskboard::testing::LoadValidFlow;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Taskflow(absl::string_view members) {
  return absl::StrCat(R"({"name": "f", "phases": [{"id": "a", "task": "x"}], )", members, "}");
}

TEST(FlowRunTimeout, BesideTaskTimeout_EachKeepsItsOwnMeaning) {
  const v1::FlowSpec spec =
      LoadValidFlow(Taskflow(R"("runTimeoutSeconds": 1800, "timeoutSeconds": 300)"));
  EXPECT_EQ(spec.run_timeout_seconds(), 1800);
  EXPECT_EQ(spec.timeout_seconds(), 300);
}

TEST(FlowRunTimeout, Absent_NoRunDeadline) {
  EXPECT_EQ(LoadValidFlow(Taskflow(R"("timeoutSeconds": 300)")).run_timeout_seconds(), 0);
}

TEST(FlowRunTimeout, EveryKindAndShorthand_AcceptIt) {
  for (const std::string& member :
       {std::string(R"("planAndExecute": {"goal": "g"})"),
        std::string(R"("supervisor": {"goal": "g"})"),
        std::string(R"("board": {"tasks": [{"id": "a", "task": "x"}]})"),
        std::string(R"("task": "x")")}) {
    SCOPED_TRACE(member);
    EXPECT_EQ(
        LoadValidFlow(absl::StrCat(R"({"name": "f", )", member, R"(, "runTimeoutSeconds": 60})"))
            .run_timeout_seconds(),
        60);
  }
}

TEST(FlowRunTimeout, OutOfRange_SaysTheBounds) {
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("runTimeoutSeconds": 0)")),
              ElementsAre(HasSubstr("runTimeoutSeconds:")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("runTimeoutSeconds": 2592001)")),
              ElementsAre(HasSubstr("runTimeoutSeconds:")));
  EXPECT_THAT(LoadFlowErrors(Taskflow(R"("runTimeoutSeconds": "30s")")),
              ElementsAre(HasSubstr("runTimeoutSeconds:")));
}

TEST(FlowRunTimeout, EncodedBack_RoundTrips) {
  const v1::FlowSpec spec = LoadValidFlow(Taskflow(R"("runTimeoutSeconds": 2592000)"));
  const Json encoded = EncodeFlow(spec);
  EXPECT_EQ(encoded["runTimeoutSeconds"], 2592000);
  absl::StatusOr<v1::FlowSpec> again = LoadFlowJson(encoded);
  ASSERT_THAT(again.status(), IsOk()) << encoded.dump(2);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(spec, *again));
}

TEST(FlowRunTimeout, ProtoOutOfRange_ReportedAtTheDslPath) {
  v1::FlowSpec spec;
  spec.set_name("f");
  v1::Phase* phase = spec.mutable_taskflow()->add_phases();
  phase->set_id("a");
  phase->set_task("x");
  spec.set_run_timeout_seconds(-5);
  EXPECT_THAT(FlowErrorLines(CheckFlowSpec(spec)),
              ElementsAre("runTimeoutSeconds: must be from 1 to 2592000 seconds (30 days), or 0 "
                          "for no run deadline (got -5)"));
  spec.set_run_timeout_seconds(30);
  EXPECT_THAT(CheckFlowSpec(spec), IsOk());
}

}  // namespace
}  // namespace taskboard::flow
