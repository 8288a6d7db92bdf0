#ifndef TASKBOARD_TOOLS_FAKE_LLM_REQUEST_LOG_H_
#define TASKBOARD_TOOLS_FAKE_LLM_REQUEST_LOG_H_

// Every request the fake LLM answered, in arrival order: kept in memory for
// `GET /requests` and, when a path is given, appended to a file as one JSON
// line each (flushed per line) so a test can read it while the server runs.
// Thread-safe.

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/json.h"

namespace taskboard::fake_llm {

class RequestLog {
 public:
  // `path` empty: memory only. INVALID_ARGUMENT when the file cannot be
  // opened for appending.
  static absl::StatusOr<std::unique_ptr<RequestLog>> Open(const std::string& path);

  // Adds `time_ms` (Unix milliseconds, now) to `entry`: when the request
  // arrived, before any scripted delay, so tests can check how long a client
  // waited between attempts.
  void Append(Json entry);
  // All entries as a JSON array.
  Json Entries() const;

 private:
  RequestLog() = default;

  mutable absl::Mutex mutex_;
  std::ofstream file_ ABSL_GUARDED_BY(mutex_);
  std::vector<Json> entries_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_REQUEST_LOG_H_
