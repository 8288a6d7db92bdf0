#ifndef TASKBOARD_COMMON_LOG_FORMAT_H_
#define TASKBOARD_COMMON_LOG_FORMAT_H_

// How one log record becomes one line of text. Pure functions: the process-wide
// logger (logger.h) decides whether a record is written at all and where.
//
// JSON (the default, for log collectors):
//   {"ts":"2026-11-21T21:24:28.123Z","level":"info","msg":"run finished",
//    "component":"scheduler","run_id":"r-...","status":"RUN_STATUS_COMPLETED"}
// Text (for people at a terminal):
//   2026-11-21T21:24:28.123Z info  scheduler: run finished run_id=r-... status=...

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "common/log/level.h"

namespace taskboard::log {

enum class Format { kJson, kText };

// "json" or "text"; INVALID_ARGUMENT naming the value and the choices otherwise.
absl::StatusOr<Format> ParseFormat(absl::string_view name);

struct Record {
  absl::Time time;
  Level level = Level::kInfo;
  std::string msg;
  // Which binary wrote it ("scheduler", "worker"); omitted when empty.
  std::string component;
  // The line's own fields (run_id, task_id, worker_id, ...), an object in the
  // order they were added; null for none (so a record that is never written
  // allocates nothing). A field named like a fixed key (ts, level, msg,
  // component) is dropped: the fixed keys always mean the same thing.
  Json fields;
};

// "2026-11-21T21:24:28.123Z": RFC 3339, UTC, milliseconds.
std::string FormatTimestamp(absl::Time time);

// One line, without the trailing newline. Strings are escaped by
// nlohmann-json (invalid UTF-8 replaced), so a line never spans two lines.
std::string FormatLine(const Record& record, Format format);

}  // namespace taskboard::log

#endif  // TASKBOARD_COMMON_LOG_FORMAT_H_
