#ifndef TASKBOARD_TESTS_TESTING_STATUS_MATCHERS_H_
#define TASKBOARD_TESTS_TESTING_STATUS_MATCHERS_H_

// gMock matchers for absl::Status and absl::StatusOr (Debian's Abseil predates
// absl/status/status_matchers.h):
//   EXPECT_THAT(status, IsOk());
//   EXPECT_THAT(result, StatusIs(absl::StatusCode::kInvalidArgument,
//                                HasSubstr("cycle")));

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace taskboard::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  if (!status.ok()) *result_listener << "status is " << status.ToString();
  return status.ok();
}

MATCHER_P(StatusIs, code, "has status code " + ::testing::PrintToString(code)) {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has status code " + ::testing::PrintToString(code) + " and a matching message") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status.ToString();
  return status.code() == code &&
         ::testing::Matches(message_matcher)(std::string(status.message()));
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_STATUS_MATCHERS_H_
