#ifndef TASKBOARD_SCHEDULER_AUDIT_AUDIT_LOG_SINK_H_
#define TASKBOARD_SCHEDULER_AUDIT_AUDIT_LOG_SINK_H_

// The audit trail as JSON lines for a SIEM (--audit-log,
// docs/audit.md#siem-lines): one line per record, the AuditEvent in
// protobuf's JSON mapping plus "type":"audit", on stderr (beside the
// scheduler's own log lines, which a collector tells apart by that field)
// or appended to a file.
//
// Thread-safe: a line is written whole under a mutex.

#include <cstdio>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "taskboard/v1/audit.pb.h"

namespace taskboard::audit {

class AuditLogSink {
 public:
  // `destination`: "off" (null sink), "stderr", or a file path opened for
  // appending. INVALID_ARGUMENT for an empty destination; UNAVAILABLE
  // naming the path when the file cannot be opened.
  static absl::StatusOr<std::unique_ptr<AuditLogSink>> Open(absl::string_view destination);
  ~AuditLogSink();

  void Write(const v1::AuditEvent& event);

  // The line Write writes, without its newline.
  static std::string Line(const v1::AuditEvent& event);

 private:
  AuditLogSink(std::FILE* file, bool owned) : file_(file), owned_(owned) {}

  absl::Mutex mu_;
  std::FILE* const file_ ABSL_PT_GUARDED_BY(mu_);
  const bool owned_;
};

}  // namespace taskboard::audit

#endif  // TASKBOARD_SCHEDULER_AUDIT_AUDIT_LOG_SINK_H_
