#include "scheduler/engine/runs/tasks_created.h"

#include <algorithm>
#include <utility>

#include "google/protobuf/io/coded_stream.h"

namespace taskboard::engine {
namespace {

using google::protobuf::io::CodedOutputStream;

// What an event adds around its tasks, at most: seq (tag and a 10-byte
// varint), run_id (tag, length, text), ts (tag, length, seconds and nanos),
// and the tasks_created field's own tag (field 19: two bytes) and length.
int64_t EnvelopeBytes(absl::string_view run_id) {
  return 11 + 6 + static_cast<int64_t>(run_id.size()) + 24 + 2 + 5;
}

// One task inside the repeated field: tag, length, message.
int64_t EntryBytes(int64_t task_bytes) {
  return 1 + CodedOutputStream::VarintSize64(static_cast<uint64_t>(task_bytes)) + task_bytes;
}

}  // namespace

TasksCreatedEvents::TasksCreatedEvents(absl::string_view run_id, int64_t max_event_bytes)
    : limit_(std::min(max_event_bytes, kTasksCreatedChunkBytes) - EnvelopeBytes(run_id)) {}

void TasksCreatedEvents::Add(const v1::Task& task) {
  const int64_t bytes = EntryBytes(static_cast<int64_t>(task.ByteSizeLong()));
  if (bytes > limit_) {
    // Too large to go whole in any tasks_created: alone as a task_change,
    // whose longest texts FitEventToLimit cuts as it always did.
    v1::RunEvent& event = events_.emplace_back();
    *event.mutable_task_change()->mutable_task() = task;
    open_ = false;
    return;
  }
  if (!open_ || filled_ + bytes > limit_) {
    events_.emplace_back().mutable_tasks_created();
    filled_ = 0;
    open_ = true;
  }
  *events_.back().mutable_tasks_created()->add_tasks() = task;
  filled_ += bytes;
}

void TasksCreatedEvents::AppendTo(std::vector<v1::RunEvent>& out) {
  for (v1::RunEvent& event : events_) out.push_back(std::move(event));
  events_.clear();
  open_ = false;
}

}  // namespace taskboard::engine
