#include "tools/fake-llm/request_log.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace taskboard::fake_llm {

absl::StatusOr<std::unique_ptr<RequestLog>> RequestLog::Open(const std::string& path) {
  std::unique_ptr<RequestLog> log(new RequestLog());
  if (!path.empty()) {
    absl::MutexLock lock(&log->mutex_);
    log->file_.open(path, std::ios::app);
    if (!log->file_.is_open()) {
      return absl::InvalidArgumentError(
          absl::StrCat("cannot open the request log ", path,
                       " for appending: check that its directory exists and is writable"));
    }
  }
  return log;
}

void RequestLog::Append(Json entry) {
  absl::MutexLock lock(&mutex_);
  // Stamped under the lock so the log's order is also its time order.
  entry["time_ms"] = absl::ToUnixMillis(absl::Now());
  if (file_.is_open()) {
    file_ << DumpJson(entry) << '\n';
    file_.flush();
  }
  entries_.push_back(std::move(entry));
}

Json RequestLog::Entries() const {
  absl::MutexLock lock(&mutex_);
  Json all = Json::array();
  for (const Json& entry : entries_) all.push_back(entry);
  return all;
}

}  // namespace taskboard::fake_llm
