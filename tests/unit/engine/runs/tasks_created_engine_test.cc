// The tasks a step adds are announced in tasks_created events: packed whole
// within --max-event-bytes (never cut), in GetRun's order, and each later
// change of a task as a task_change.

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/event_tasks.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string BoardOf(int tasks, int text_bytes = 10) {
  std::string list;
  for (int i = 0; i < tasks; ++i) {
    absl::StrAppend(&list, i == 0 ? "" : ",", R"({"id": "t)", i,
                    R"(", "agent": "coder", "task": ")",
                    std::string(static_cast<size_t>(text_bytes), 'x'), R"("})");
  }
  return absl::StrCat(R"({"name": "b", "kind": "board", "board": {"tasks": [)", list, "]}}");
}

EngineOptions EventLimit(int64_t max_event_bytes) {
  EngineOptions options = EngineHarness::DefaultOptions();
  options.limits.max_event_bytes = max_event_bytes;
  return options;
}

// A board larger than one event: several tasks_created, none cut, that
// together list exactly what GetRun lists, in its order.
TEST(TasksCreated, Submit_BoardOverTheEventLimit_ChunkedNeverCutInGetRunOrder) {
  EngineHarness h(EventLimit(4'096));
  const std::string run = h.Submit(BoardOf(300));
  const v1::Run view = h.ReadRunView(run);
  ASSERT_EQ(view.tasks_size(), 300);

  int chunks = 0;
  std::vector<std::string> announced;
  for (const v1::RunEvent& event : h.Events(run)) {
    EXPECT_FALSE(event.has_task_change()) << event.DebugString();
    EXPECT_LE(static_cast<int64_t>(event.ByteSizeLong()), 4'096);
    EXPECT_THAT(event.SerializeAsString(), Not(HasSubstr("--max-event-bytes")));
    if (!event.has_tasks_created()) continue;
    ++chunks;
    for (const v1::Task& task : event.tasks_created().tasks()) announced.push_back(task.task_id());
  }
  EXPECT_GT(chunks, 1);
  std::vector<std::string> listed;
  for (const v1::Task& task : view.tasks()) listed.push_back(task.task_id());
  EXPECT_EQ(announced, listed);
}

// A task too large for an event of its own (here a title of 200 bytes
// against a 256-byte limit) is announced as a task_change, cut with the
// marker as before; the others still come together.
TEST(TasksCreated, Submit_TaskLargerThanTheLimit_AloneAsACutTaskChange) {
  EngineHarness h(EventLimit(256));
  const std::string run = h.Submit(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "a", "agent": "coder", "task": "small"},
      {"id": "big", "agent": "coder", "task": ")" +
                                   std::string(200, 'x') + R"("},
      {"id": "c", "agent": "coder", "task": "small"}]}})");

  std::vector<std::string> kinds;
  for (const v1::RunEvent& event : h.Events(run)) {
    EXPECT_LE(static_cast<int64_t>(event.ByteSizeLong()), 256) << event.DebugString();
    if (event.has_task_change()) {
      kinds.push_back(absl::StrCat("task_change ", event.task_change().task().task_id()));
      EXPECT_THAT(event.task_change().task().title(), HasSubstr("--max-event-bytes"));
    }
    if (event.has_tasks_created()) {
      std::string ids;
      for (const v1::Task& task : event.tasks_created().tasks()) {
        absl::StrAppend(&ids, " ", task.task_id());
      }
      kinds.push_back(absl::StrCat("tasks_created", ids));
    }
  }
  EXPECT_THAT(kinds, ElementsAre("tasks_created a c", "task_change big"));
  // The stored task keeps its whole text.
  const v1::Run view = h.ReadRunView(run);
  EXPECT_EQ(view.tasks(2).title(), std::string(200, 'x'));
}

// Created once, then changed: the creation in tasks_created, each later
// change (dispatch, start, result) as a task_change, and a map's items,
// created when the phase before it completes, in a tasks_created of their own.
TEST(TasksCreated, MapItems_AnnouncedTogetherWhenFannedOutThenChangedOneByOne) {
  EngineHarness h;
  const std::string run = h.Submit(R"({"name": "m", "phases": [
      {"id": "list", "agent": "coder", "task": "list", "output": "json"},
      {"id": "each", "type": "map", "agent": "coder", "task": "do {item}",
       "over": "{steps.list.json}", "dependsOn": ["list"]}]})");
  TestWorker w = h.Connect("w1", {"coder"}, /*slots=*/1);
  h.Finish(w, h.OnlyAssignment(w), true, "[1, 2, 3]");

  std::vector<std::vector<std::string>> created;
  std::set<std::string> changed;
  for (const v1::RunEvent& event : h.Events(run)) {
    if (event.has_tasks_created()) {
      std::vector<std::string>& ids = created.emplace_back();
      for (const v1::Task& task : event.tasks_created().tasks()) ids.push_back(task.task_id());
    }
    if (event.has_task_change()) changed.insert(event.task_change().task().task_id());
  }
  EXPECT_THAT(created,
              ElementsAre(ElementsAre("list"), ElementsAre("each[0]", "each[1]", "each[2]")));
  // `list` was dispatched, started and completed after it was created; the
  // first item was dispatched in a later batch than its creation or not.
  EXPECT_TRUE(changed.count("list"));
  // Every task's final state is what GetRun says.
  std::map<std::string, v1::TaskState> last;
  for (const v1::RunEvent& event : h.Events(run)) {
    for (const v1::Task* task : ::taskboard::testing::TasksIn(event)) {
      last[task->task_id()] = task->state();
    }
  }
  const v1::Run view = h.ReadRunView(run);
  ASSERT_EQ(view.tasks_size(), 4);
  for (const v1::Task& task : view.tasks()) {
    EXPECT_EQ(last[task.task_id()], task.state()) << task.task_id();
  }
}

}  // namespace
}  // namespace taskboard::engine
