#ifndef TASKBOARD_TESTS_UNIT_ENGINE_RUNS_BOARD_RUNS_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_RUNS_BOARD_RUNS_H_

// Many board runs submitted through an EngineHarness, for the tests of how
// runs come back after a restart (run_loader_test.cc,
// recover_on_rocksdb_engine_test.cc).

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine::testing {

// A board of `tasks` coder tasks; every third one has a higher priority, so
// the dispatch order interleaves runs.
inline std::string Board(int tasks) {
  std::string list;
  for (int i = 0; i < tasks; ++i) {
    absl::StrAppend(&list, i == 0 ? "" : ",", R"({"id": "t)", i,
                    R"(", "agent": "coder", "task": "x", "priority": )", i % 3 == 0 ? 1 : 0, "}");
  }
  return absl::StrCat(R"({"name": "b", "kind": "board", "board": {"tasks": [)", list, "]}}");
}

// `runs` boards of `tasks` tasks each, a millisecond apart; their run ids.
inline std::vector<std::string> SubmitBoards(EngineHarness& h, int runs, int tasks) {
  std::vector<std::string> ids;
  for (int i = 0; i < runs; ++i) {
    ids.push_back(h.Submit(Board(tasks)));
    h.Advance(1);  // each run's tasks become ready a millisecond later
  }
  return ids;
}

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_RUNS_BOARD_RUNS_H_
