#ifndef TASKBOARD_TESTS_TESTING_PROMETHEUS_TEXT_H_
#define TASKBOARD_TESTS_TESTING_PROMETHEUS_TEXT_H_

// Reading one sample out of Prometheus text exposition, for tests that
// assert what a service exports.

#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"

namespace taskboard::testing {

// The value of the sample written exactly as `series` (name plus labels in
// the exposition's label order), or nullopt when there is none.
inline std::optional<double> SampleValue(const std::string& exposition, const std::string& series) {
  std::istringstream lines(exposition);
  std::string line;
  while (std::getline(lines, line)) {
    if (!absl::StartsWith(line, series + " ")) continue;
    double value = 0;
    if (!absl::SimpleAtod(line.substr(series.size() + 1), &value)) return std::nullopt;
    return value;
  }
  return std::nullopt;
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_PROMETHEUS_TEXT_H_
