// The tasks a step adds are packed into tasks_created events whole within
// --max-event-bytes (never cut), in the order given (the Engine's side:
// tasks_created_engine_test.cc).

#include "scheduler/engine/runs/tasks_created.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/event_size.h"

namespace taskboard::engine {
namespace {

using ::testing::SizeIs;

v1::Task TaskNamed(const std::string& id, size_t title_bytes = 10) {
  v1::Task task;
  task.set_task_id(id);
  task.set_run_id("run-1");
  task.set_title(std::string(title_bytes, 't'));
  return task;
}

// What an event weighs once the engine numbers and stamps it.
int64_t StampedBytes(v1::RunEvent event) {
  event.set_seq(INT64_MAX);
  event.set_run_id("run-1");
  event.mutable_ts()->set_seconds(INT64_MAX);
  event.mutable_ts()->set_nanos(999'999'999);
  return static_cast<int64_t>(event.ByteSizeLong());
}

TEST(TasksCreatedEvents, ManyTasks_PackedInOrderEachWithinTheLimit) {
  TasksCreatedEvents created("run-1", /*max_event_bytes=*/2'000);
  for (int i = 0; i < 100; ++i) created.Add(TaskNamed(absl::StrCat("t", i)));
  std::vector<v1::RunEvent> events;
  created.AppendTo(events);

  ASSERT_GT(events.size(), 1u);
  ASSERT_LT(events.size(), 10u);
  std::vector<std::string> ids;
  for (const v1::RunEvent& event : events) {
    ASSERT_TRUE(event.has_tasks_created());
    EXPECT_LE(StampedBytes(event), 2'000);
    for (const v1::Task& task : event.tasks_created().tasks()) ids.push_back(task.task_id());
  }
  ASSERT_THAT(ids, SizeIs(100));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(ids[i], absl::StrCat("t", i));
}

TEST(TasksCreatedEvents, TaskTooLargeForAnEvent_ComesAloneAsTaskChange) {
  TasksCreatedEvents created("run-1", /*max_event_bytes=*/2'000);
  created.Add(TaskNamed("a"));
  created.Add(TaskNamed("big", 5'000));
  created.Add(TaskNamed("c"));
  std::vector<v1::RunEvent> events;
  created.AppendTo(events);

  ASSERT_THAT(events, SizeIs(3));
  EXPECT_EQ(events[0].tasks_created().tasks(0).task_id(), "a");
  EXPECT_EQ(events[1].task_change().task().task_id(), "big");
  EXPECT_EQ(events[2].tasks_created().tasks(0).task_id(), "c");
}

TEST(TasksCreatedEvents, LargeLimit_EventsStayWithinTheChunkSize) {
  TasksCreatedEvents created("run-1", /*max_event_bytes=*/64 << 20);
  for (int i = 0; i < 4'000; ++i) created.Add(TaskNamed(absl::StrCat("t", i), 200));
  std::vector<v1::RunEvent> events;
  created.AppendTo(events);

  ASSERT_GT(events.size(), 2u);
  for (const v1::RunEvent& event : events) {
    EXPECT_LE(StampedBytes(event), kTasksCreatedChunkBytes);
  }
}

}  // namespace
}  // namespace taskboard::engine
