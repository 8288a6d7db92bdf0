#include "scheduler/audit/audit_recorder.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/log/log.h"
#include "common/metrics/builder.h"
#include "scheduler/audit/audit_sweep.h"
#include "scheduler/store/keys.h"

namespace taskboard::audit {
namespace {

// Deletes per committed batch, and batches per pass: a pass after a long
// outage catches up over several passes rather than in one huge batch.
constexpr int kSweepBatch = 1000;
constexpr int kSweepBatchesPerPass = 50;

absl::string_view OutcomeLabel(v1::AuditOutcome outcome) {
  switch (outcome) {
    case v1::AUDIT_OUTCOME_OK:
      return "ok";
    case v1::AUDIT_OUTCOME_ERROR:
      return "error";
    case v1::AUDIT_OUTCOME_REFUSED:
      return "refused";
    default:
      return "unspecified";
  }
}

}  // namespace

void SetOutcome(const absl::Status& status, bool refused, v1::AuditEvent& event) {
  event.set_code(absl::StatusCodeToString(status.code()));
  event.set_message(std::string(status.message()));
  if (refused) {
    event.set_outcome(v1::AUDIT_OUTCOME_REFUSED);
  } else {
    event.set_outcome(status.ok() ? v1::AUDIT_OUTCOME_OK : v1::AUDIT_OUTCOME_ERROR);
  }
}

absl::StatusOr<std::unique_ptr<AuditRecorder>> AuditRecorder::Create(AuditRecorderOptions options) {
  if (!options.commit) return absl::InvalidArgumentError("the audit recorder needs a commit");
  if (options.retention < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "--audit-retention must not be negative (0 keeps records forever)");
  }
  if (!options.now) options.now = [] { return absl::Now(); };
  absl::StatusOr<std::unique_ptr<AuditLogSink>> log = AuditLogSink::Open(options.log);
  if (!log.ok()) return log.status();
  std::unique_ptr<AuditRecorder> recorder(new AuditRecorder(std::move(options)));
  recorder->log_ = *std::move(log);
  if (recorder->options_.retention > absl::ZeroDuration() && recorder->options_.store) {
    recorder->sweeper_ = std::thread([raw = recorder.get()] { raw->SweepLoop(); });
  }
  return recorder;
}

AuditRecorder::AuditRecorder(AuditRecorderOptions options)
    : options_(std::move(options)), limiter_(options_.refused) {
  if (options_.registry == nullptr) return;
  records_ = &metrics::BuildCounter()
                  .Name("taskboard_audit_records_total")
                  .Help("Audit records handed to the store, by outcome (docs/audit.md).")
                  .Register(*options_.registry);
  refused_dropped_ =
      &metrics::BuildCounter()
           .Name("taskboard_audit_refused_dropped_total")
           .Help("Refused calls not recorded: their source was over --audit-refused-rate.")
           .Register(*options_.registry)
           .Add({});
  unwritten_ = &metrics::BuildCounter()
                    .Name("taskboard_audit_unwritten_total")
                    .Help("Audit records not written: the replica did not lead.")
                    .Register(*options_.registry)
                    .Add({});
  swept_ = &metrics::BuildCounter()
                .Name("taskboard_audit_swept_total")
                .Help("Audit records deleted past --audit-retention.")
                .Register(*options_.registry)
                .Add({});
}

AuditRecorder::~AuditRecorder() { Stop(); }

void AuditRecorder::Stop() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (sweeper_.joinable()) sweeper_.join();
}

void AuditRecorder::Record(v1::AuditEvent event) { Write(std::move(event)); }

bool AuditRecorder::RecordRefused(v1::AuditEvent event, bool token_known) {
  const std::string source = RefusalSource(event.tenant(), token_known, event.peer());
  if (!limiter_.Allow(source, options_.now())) {
    if (refused_dropped_ != nullptr) refused_dropped_->Increment();
    return false;
  }
  Write(std::move(event));
  return true;
}

void AuditRecorder::Write(v1::AuditEvent event) {
  const absl::Time now = options_.now();
  uint64_t micros;
  {
    // Never the same microsecond twice: the time is the record's key.
    absl::MutexLock lock(&mu_);
    micros = std::max<uint64_t>(
        static_cast<uint64_t>(std::max<int64_t>(absl::ToUnixMicros(now), 0)), last_micros_ + 1);
    last_micros_ = micros;
  }
  event.set_id(absl::StrCat(micros));
  event.mutable_time()->set_seconds(static_cast<int64_t>(micros / 1000000));
  event.mutable_time()->set_nanos(static_cast<int32_t>(micros % 1000000) * 1000);
  store::WriteBatch writes;
  writes.Put(store::Column::kMeta, store::keys::AuditRecord(event.tenant(), micros),
             event.SerializeAsString());
  writes.Put(store::Column::kMeta, store::keys::AuditByTime(micros, event.tenant()), "");
  if (!options_.commit(std::move(writes), nullptr)) {
    if (unwritten_ != nullptr) unwritten_->Increment();
    return;
  }
  if (records_ != nullptr)
    records_->Add({{"outcome", std::string(OutcomeLabel(event.outcome()))}}).Increment();
  if (log_ != nullptr) log_->Write(event);
}

absl::StatusOr<int> AuditRecorder::SweepOnce() {
  if (options_.retention <= absl::ZeroDuration() || !options_.store) return 0;
  const int64_t cutoff = absl::ToUnixMicros(options_.now() - options_.retention);
  if (cutoff <= 0) return 0;
  int deleted = 0;
  for (int pass = 0; pass < kSweepBatchesPerPass; ++pass) {
    store::Store* store = options_.store();
    if (store == nullptr) return deleted;
    absl::StatusOr<store::WriteBatch> expired =
        ExpiredAuditRecords(*store, static_cast<uint64_t>(cutoff), kSweepBatch);
    if (!expired.ok()) return expired.status();
    if (expired->empty()) break;
    // Two deletes per record: the record and its index key.
    const int records = static_cast<int>(expired->ops().size() / 2);
    auto written = std::make_shared<absl::Notification>();
    if (!options_.commit(*std::move(expired), [written] { written->Notify(); })) return deleted;
    // The next scan must not find these again; an engine that stops never
    // writes them, so the wait is bounded.
    if (!WaitWritten(*written)) {
      return absl::DeadlineExceededError(
          "the audit sweep's deletes were not written within 30 s, or the scheduler is "
          "stopping; the next pass retries");
    }
    deleted += records;
    if (swept_ != nullptr) swept_->Increment(records);
    if (records < kSweepBatch) break;
  }
  return deleted;
}

bool AuditRecorder::WaitWritten(absl::Notification& written) {
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!written.WaitForNotificationWithTimeout(absl::Milliseconds(100))) {
    absl::MutexLock lock(&mu_);
    if (stopping_ || absl::Now() > deadline) return false;
  }
  return true;
}

void AuditRecorder::SweepLoop() {
  absl::Duration every = options_.sweep_every;
  if (every <= absl::ZeroDuration()) {
    every = std::clamp(options_.retention / 10, absl::Seconds(1), absl::Hours(1));
  }
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
      if (mu_.AwaitWithTimeout(absl::Condition(&stopping), every)) return;
    }
    absl::StatusOr<int> swept = SweepOnce();
    if (!swept.ok()) {
      log::Warn("audit sweep failed").With("error", swept.status().ToString());
    } else if (*swept > 0) {
      log::Info("audit records past --audit-retention deleted").With("records", *swept);
    }
  }
}

}  // namespace taskboard::audit
