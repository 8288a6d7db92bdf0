#include "tools/cli/run_event_stream.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace taskboard::cli {
namespace {

// The reader wakes for every message of the stream. On a machine it shares
// with the scheduler and its workers (a laptop, the benchmarks), each wake-up
// took the core of a thread the run it shows was waiting for. It yields to
// them instead: a batch thread (not preferred on wake-up) at a lower
// priority (decision 133). When a core is free, as when the run ends, it is
// scheduled at once all the same. Best effort: lowering one's own priority
// needs no privilege. Threads gRPC starts from this one (its executor's)
// inherit the priority; the thread that renders keeps its own.
void YieldToTheRun() {
  sched_param param{};
  (void)pthread_setschedparam(pthread_self(), SCHED_BATCH, &param);
  // Never raised: a follower started with `nice -n 15` stays at 15.
  const id_t self = static_cast<id_t>(gettid());
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, self);
  if (errno == 0 && nice < RunEventStream::kReaderNice) {
    (void)setpriority(PRIO_PROCESS, self, RunEventStream::kReaderNice);
  }
}

}  // namespace

RunEventStream::RunEventStream(SchedulerClient& client, const std::string& run_id,
                               int64_t after_seq)
    : client_(client),
      stub_(std::make_unique<v1::Scheduler::Stub>(client.channels().Current(&address_))),
      context_(client.StreamContext()) {
  v1::WatchRunRequest request;
  request.set_run_id(run_id);
  request.set_after_seq(after_seq);
  // A busy run's events arrive a burst per message, not one each.
  request.set_max_events_per_message(1000);
  reader_ = stub_->WatchRun(context_.get(), request);
  thread_ = std::thread([this] { ReadAll(); });
}

RunEventStream::~RunEventStream() {
  context_->TryCancel();
  thread_.join();
}

void RunEventStream::ReadAll() {
  YieldToTheRun();
  v1::WatchRunResponse response;
  while (reader_->Read(&response)) {
    absl::MutexLock lock(&mu_);
    if (response.has_event()) events_.push_back(std::move(*response.mutable_event()));
    for (v1::RunEvent& event : *response.mutable_events()) events_.push_back(std::move(event));
    finished_ = finished_ || (!events_.empty() && events_.back().has_run_finished());
  }
  grpc::Status status = reader_->Finish();
  const bool redirected = status.error_code() == grpc::StatusCode::UNAVAILABLE &&
                          !failover::LeaderHint(*context_).empty();
  client_.channels().Observe(address_, status, *context_);
  absl::MutexLock lock(&mu_);
  status_ = std::move(status);
  redirected_ = redirected;
  closed_ = true;
}

std::vector<v1::RunEvent> RunEventStream::Next(absl::Time deadline, absl::Time not_before) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithDeadline(absl::Condition(this, &RunEventStream::Urgent),
                        std::min(not_before, deadline));
  mu_.AwaitWithDeadline(absl::Condition(this, &RunEventStream::HasNews), deadline);
  std::vector<v1::RunEvent> batch;
  batch.swap(events_);
  finished_ = false;
  return batch;
}

bool RunEventStream::HasNews() const { return !events_.empty() || closed_; }

bool RunEventStream::Urgent() const { return finished_ || closed_; }

bool RunEventStream::ended() const {
  absl::MutexLock lock(&mu_);
  return closed_ && events_.empty();
}

bool RunEventStream::redirected() const {
  absl::MutexLock lock(&mu_);
  return redirected_;
}

grpc::Status RunEventStream::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

}  // namespace taskboard::cli
