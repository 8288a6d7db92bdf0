#ifndef TASKBOARD_SCHEDULER_AUDIT_AUDIT_RECORDER_H_
#define TASKBOARD_SCHEDULER_AUDIT_AUDIT_RECORDER_H_

// Keeps the audit trail (docs/audit.md): gives each record its time, writes
// it under its tenant through the engine's commit (the one writer, so a
// replicated scheduler replicates it), copies it to the SIEM log when
// --audit-log is on, bounds refused calls (refusal_limiter.h), and sweeps
// records older than --audit-retention on a thread of its own.
//
// No gRPC and no RocksDB here: the server layer turns calls into AuditEvents
// (scheduler/server/audit_interceptor.h) and hands in how to commit and
// where to read.
//
// Thread-safe: Record and RecordRefused are called from gRPC's threads.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/metrics/counter.h"
#include "common/metrics/family.h"
#include "common/metrics/registry.h"
#include "scheduler/audit/audit_log_sink.h"
#include "scheduler/audit/refusal_limiter.h"
#include "scheduler/store/store.h"
#include "taskboard/v1/audit.pb.h"

namespace taskboard::audit {

struct AuditRecorderOptions {
  // Commits `writes` with the engine's next batch and calls `written` once
  // they are on disk; false when there is no engine to write to (a replica
  // that follows: its store is the leader's copy).
  std::function<bool(store::WriteBatch writes, std::function<void()> written)> commit;
  // The store the sweeps read; null while there is none.
  std::function<store::Store*()> store;
  // Records older than this are deleted; zero: kept forever.
  absl::Duration retention = absl::Hours(24 * 90);
  // How often the sweep runs; zero: a tenth of the retention, between one
  // second and one hour.
  absl::Duration sweep_every = absl::ZeroDuration();
  // --audit-log: off, stderr or a path (audit_log_sink.h).
  std::string log = "off";
  RefusalLimits refused;
  // Null: no metrics. Outlives the recorder.
  metrics::Registry* registry = nullptr;
  // Null: absl::Now.
  std::function<absl::Time()> now;
};

class AuditRecorder {
 public:
  // INVALID_ARGUMENT / UNAVAILABLE from opening the log (audit_log_sink.h);
  // INVALID_ARGUMENT for a negative retention or no commit function.
  static absl::StatusOr<std::unique_ptr<AuditRecorder>> Create(AuditRecorderOptions options);
  // Stops the sweeper.
  ~AuditRecorder();
  AuditRecorder(const AuditRecorder&) = delete;
  AuditRecorder& operator=(const AuditRecorder&) = delete;

  // Stops the sweeper (waiting for a pass under way); records may still be
  // handed in. Idempotent; the destructor calls it.
  void Stop();

  // Records an admitted call's outcome; sets its id and time.
  void Record(v1::AuditEvent event);
  // Records a refused call unless its source is over the rate bound, which
  // counts it in taskboard_audit_refused_dropped_total instead. False when
  // dropped. `token_known`: the event names the caller's token (a role
  // refusal) rather than an unknown one.
  bool RecordRefused(v1::AuditEvent event, bool token_known);

  // One retention pass, waiting for its deletes to be written: how many
  // records it deleted. The sweeper calls it; tests call it directly.
  absl::StatusOr<int> SweepOnce();

  absl::Duration retention() const { return options_.retention; }

 private:
  explicit AuditRecorder(AuditRecorderOptions options);
  void Write(v1::AuditEvent event);
  void SweepLoop();
  // Whether `written` came within 30 s and before Stop.
  bool WaitWritten(absl::Notification& written);

  AuditRecorderOptions options_;
  std::unique_ptr<AuditLogSink> log_;
  RefusalLimiter limiter_;
  absl::Mutex mu_;
  uint64_t last_micros_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  metrics::Family<metrics::Counter>* records_ = nullptr;
  metrics::Counter* refused_dropped_ = nullptr;
  metrics::Counter* unwritten_ = nullptr;
  metrics::Counter* swept_ = nullptr;
  std::thread sweeper_;
};

// The outcome, code and message of a call that ended with `status`.
void SetOutcome(const absl::Status& status, bool refused, v1::AuditEvent& event);

}  // namespace taskboard::audit

#endif  // TASKBOARD_SCHEDULER_AUDIT_AUDIT_RECORDER_H_
