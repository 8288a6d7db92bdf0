#ifndef TASKBOARD_TESTS_TESTING_FLOW_ERROR_LINES_H_
#define TASKBOARD_TESTS_TESTING_FLOW_ERROR_LINES_H_

// The structured flow errors a status carries (see scheduler/flow/flow_errors.h)
// as `path: message` lines, so tests can assert them with ElementsAre/Contains:
//
//   EXPECT_THAT(FlowErrorLines(LoadFlowText(text).status()),
//               ElementsAre("phases[1].id: duplicate phase id 'a' (first used at phases[0])"));

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::testing {

inline std::vector<std::string> FlowErrorLines(const absl::Status& status) {
  const v1::FlowErrors errors = flow::FlowErrorsFromStatus(status);
  std::vector<std::string> lines;
  for (const v1::FlowError& error : errors.errors()) {
    lines.push_back(flow::FormatFlowError(error));
  }
  return lines;
}

// Loads flow text, expecting a valid flow (an empty spec and a test failure
// otherwise).
inline v1::FlowSpec LoadValidFlow(absl::string_view text) {
  absl::StatusOr<v1::FlowSpec> spec = flow::LoadFlowText(text);
  EXPECT_THAT(spec, IsOk());
  return spec.ok() ? *std::move(spec) : v1::FlowSpec();
}

// Loads flow text, expecting INVALID_ARGUMENT; returns its errors as lines.
inline std::vector<std::string> LoadFlowErrors(absl::string_view text) {
  absl::StatusOr<v1::FlowSpec> spec = flow::LoadFlowText(text);
  EXPECT_THAT(spec, StatusIs(absl::StatusCode::kInvalidArgument));
  return FlowErrorLines(spec.status());
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_FLOW_ERROR_LINES_H_
