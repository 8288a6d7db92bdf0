#include "scheduler/engine/state/task_states.h"

#include "absl/strings/ascii.h"

namespace taskboard::engine {

bool IsTerminal(v1::TaskState state) {
  switch (state) {
    case v1::TASK_STATE_COMPLETED:
    case v1::TASK_STATE_FAILED:
    case v1::TASK_STATE_CANCELLED:
    case v1::TASK_STATE_SKIPPED:
      return true;
    default:
      return false;
  }
}

bool IsInFlight(v1::TaskState state) {
  switch (state) {
    case v1::TASK_STATE_READY:
    case v1::TASK_STATE_DISPATCHED:
    case v1::TASK_STATE_RUNNING:
    case v1::TASK_STATE_RETRYING:
      return true;
    default:
      return false;
  }
}

bool IsTerminal(v1::RunStatus status) {
  switch (status) {
    case v1::RUN_STATUS_COMPLETED:
    case v1::RUN_STATUS_FAILED:
    case v1::RUN_STATUS_BLOCKED:
    case v1::RUN_STATUS_CANCELLED:
    // Stopped by a budget: it leaves memory like any ended run, and
    // ResumeRun brings it back.
    case v1::RUN_STATUS_PAUSED:
    case v1::RUN_STATUS_TIMED_OUT:
      return true;
    default:
      return false;
  }
}

std::string RunStatusWord(v1::RunStatus status) {
  return absl::AsciiStrToLower(v1::RunStatus_Name(status).substr(sizeof("RUN_STATUS_") - 1));
}

std::string TaskStateWord(v1::TaskState state) {
  return absl::AsciiStrToLower(v1::TaskState_Name(state).substr(sizeof("TASK_STATE_") - 1));
}

int64_t ToUnixMs(const google::protobuf::Timestamp& ts) {
  return ts.seconds() * 1000 + ts.nanos() / 1'000'000;
}

google::protobuf::Timestamp ToTimestamp(int64_t unix_ms) {
  google::protobuf::Timestamp ts;
  ts.set_seconds(unix_ms / 1000);
  ts.set_nanos(static_cast<int32_t>((unix_ms % 1000) * 1'000'000));
  return ts;
}

}  // namespace taskboard::engine
