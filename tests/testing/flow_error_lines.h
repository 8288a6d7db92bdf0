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
#include "scheduler/flow/flow_errors.h"

namespace taskboard::testing {

inline std::vector<std::string> FlowErrorLines(const absl::Status& status) {
  const v1::FlowErrors errors = flow::FlowErrorsFromStatus(status);
  std::vector<std::string> lines;
  for (const v1::FlowError& error : errors.errors()) {
    lines.push_back(flow::FormatFlowError(error));
  }
  return lines;
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_FLOW_ERROR_LINES_H_
