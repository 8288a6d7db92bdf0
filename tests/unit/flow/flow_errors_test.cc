#include "scheduler/flow/flow_errors.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(FlowErrorList, Empty_IsOk) { EXPECT_THAT(FlowErrorList().ToStatus(), IsOk()); }

TEST(FlowErrorList, ToStatus_ListsEveryErrorAndCarriesThemStructured) {
  FlowErrorList errors;
  errors.Add("phases[0].id", "missing 'id'");
  errors.Add("", "no phases");
  absl::Status status = errors.ToStatus();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               HasSubstr("phases[0].id: missing 'id'\n  no phases")));
  v1::FlowErrors carried = FlowErrorsFromStatus(status);
  ASSERT_EQ(carried.errors_size(), 2);
  EXPECT_EQ(carried.errors(0).path(), "phases[0].id");
  EXPECT_EQ(carried.errors(1).message(), "no phases");
}

TEST(FlowErrorList, InvalidUtf8InMessage_ReplacedSoTheErrorsParseBack) {
  FlowErrorList errors;
  errors.Add("name", "invalid JSON: last read: '\xde'");
  v1::FlowErrors carried = FlowErrorsFromStatus(errors.ToStatus());
  ASSERT_EQ(carried.errors_size(), 1);
  EXPECT_EQ(carried.errors(0).message(), "invalid JSON: last read: '\xef\xbf\xbd'");
}

}  // namespace
}  // namespace taskboard::flow
