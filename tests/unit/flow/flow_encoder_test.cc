#include "scheduler/flow/flow_encoder.h"

#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::LoadValidFlow;

// Encoding `text`'s flow and decoding the result gives the same spec.
void ExpectRoundTrip(const std::string& text) {
  const v1::FlowSpec spec = LoadValidFlow(text);
  const Json encoded = EncodeFlow(spec);
  absl::StatusOr<v1::FlowSpec> again = LoadFlowJson(encoded);
  ASSERT_THAT(again.status(), IsOk()) << encoded.dump(2);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(spec, *again)) << encoded.dump(2);
}

TEST(FlowEncoder, PatternPhases_RoundTrip) {
  ExpectRoundTrip(R"({"name": "f", "phases": [
      {"id": "p", "type": "plan", "agent": "w", "task": "x"},
      {"id": "s", "type": "supervise", "agent": "w", "task": "y",
       "supervise": {"reviewCriteria": ["sourced"]}},
      {"id": "e", "type": "plan", "task": "z", "plan": {"stepExecutor": {"flow": "step"}}}]})");
}

TEST(FlowEncoder, MapWithAnEmptyPatternBlock_KeepsTheBlock) {
  ExpectRoundTrip(R"({"name": "f", "phases": [
      {"id": "m", "type": "map", "over": "[1, 2]", "agent": "w", "task": "{item}",
       "supervise": {}}]})");
  ExpectRoundTrip(R"({"name": "f", "phases": [
      {"id": "m", "type": "map", "over": "[1, 2]", "agent": "w", "task": "{item}",
       "plan": {}}]})");
}

}  // namespace
}  // namespace taskboard::flow
