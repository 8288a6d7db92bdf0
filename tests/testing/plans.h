#ifndef TASKBOARD_TESTS_TESTING_PLANS_H_
#define TASKBOARD_TESTS_TESTING_PLANS_H_

// Planner replies for tests of plan-and-execute and supervisor runs.

#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::testing {

// A plan of `count` independent tasks t0, t1, ... each with goal "G":
// {"tasks": [{"id": "t0", "goal": "G"}, ...]}.
inline std::string PlanOf(int count) {
  std::string tasks;
  for (int i = 0; i < count; ++i) {
    absl::StrAppend(&tasks, i == 0 ? "" : ",", R"({"id": "t)", i, R"(", "goal": "G"})");
  }
  return absl::StrCat(R"({"tasks": [)", tasks, "]}");
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_PLANS_H_
