#include "scheduler/server/watch_reactor.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/stream_batch.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/run_access.h"

namespace taskboard::server {
namespace {

// One event of `batch`, keeping the whole batch alive.
std::shared_ptr<const v1::RunEvent> Shared(const engine::EventBatch& batch,
                                           const v1::RunEvent& event) {
  return std::shared_ptr<const v1::RunEvent>(batch, &event);
}

}  // namespace

// The hub holds the sink, not the reactor: gRPC deletes the reactor in
// OnDone, after which the sink drops events.
class WatchReactor::Sink final : public engine::WatchSink {
 public:
  explicit Sink(WatchReactor* reactor) : reactor_(reactor) {}
  void OnEvents(const engine::EventBatch& events) override {
    absl::MutexLock lock(&mu_);
    if (reactor_ != nullptr) reactor_->Deliver(events);
  }
  void OnClose(const std::string& reason) override {
    absl::MutexLock lock(&mu_);
    if (reactor_ != nullptr) {
      reactor_->FinishEarly(grpc::Status(grpc::StatusCode::UNAVAILABLE, reason));
    }
  }
  void Detach() {
    absl::MutexLock lock(&mu_);
    reactor_ = nullptr;
  }

 private:
  absl::Mutex mu_;
  WatchReactor* reactor_ ABSL_GUARDED_BY(mu_);
};

WatchReactor* WatchReactor::Start(engine::Engine* engine, BlockingPool* pool,
                                  const v1::WatchRunRequest& request,
                                  std::optional<std::string> tenant, const CallGate* gate,
                                  const grpc::CallbackServerContext* context) {
  auto* reactor = new WatchReactor(engine, pool, request, std::move(tenant), gate, context);
  pool->Run([reactor] { reactor->ReplayPage(); });
  return reactor;
}

WatchReactor::WatchReactor(engine::Engine* engine, BlockingPool* pool,
                           const v1::WatchRunRequest& request, std::optional<std::string> tenant,
                           const CallGate* gate, const grpc::CallbackServerContext* context)
    : engine_(engine),
      pool_(pool),
      run_id_(request.run_id()),
      events_per_message_(
          std::clamp<int>(request.max_events_per_message(), 1, kMaxEventsPerMessage)),
      tenant_(std::move(tenant)),
      gate_(gate),
      last_seq_(std::max<int64_t>(request.after_seq(), 0)) {
  sink_ = std::make_shared<Sink>(this);
  subscription_ = engine_->watch_hub().Subscribe(run_id_, sink_);
  if (gate_ != nullptr && context != nullptr) {
    tracked_ = gate_->Track(*context, SchedulerMethod("WatchRun"),
                            [sink = sink_](const std::string& reason) { sink->OnClose(reason); });
  }
}

void WatchReactor::ReplayPage() {
  // Live events that arrive meanwhile wait in live_during_replay_ and are
  // dropped if the run is not visible to the caller.
  absl::Status status;
  if (!checked_visible_) {
    checked_visible_ = true;
    status = CheckRunVisible(engine_->store(), run_id_, tenant_);
    if (status.ok() && !tenant_.has_value()) {
      status = engine::ReadRunRecord(engine_->store(), run_id_).status();
    }
  }
  std::vector<v1::RunEvent> page;
  int64_t after;
  {
    absl::MutexLock lock(&mu_);
    after = last_seq_;
  }
  if (status.ok()) {
    status = engine::ReadEvents(engine_->store(), run_id_, after, [&](v1::RunEvent& event) {
      page.push_back(std::move(event));
      return page.size() < kReplayPage;
    });
  }
  Next next;
  {
    absl::MutexLock lock(&mu_);
    page_pending_ = false;
    if (!status.ok()) {
      finish_requested_ = true;
      finish_status_ = ToGrpcStatus(status);
      replaying_ = false;
    } else {
      const bool caught_up = page.size() < kReplayPage;
      const engine::EventBatch stored =
          std::make_shared<const std::vector<v1::RunEvent>>(std::move(page));
      for (const v1::RunEvent& event : *stored) AppendLocked(Shared(stored, event));
      if (caught_up) {
        // Caught up: what was published meanwhile follows, then live.
        for (auto& event : live_during_replay_) AppendLocked(std::move(event));
        live_during_replay_.clear();
        replaying_ = false;
        // The last page goes out as the replay's pages do, never held.
        last_write_ = WatchLinger::kSmallWrite;
      }
    }
    next = NextLocked();
  }
  Act(next);
}

void WatchReactor::Deliver(const engine::EventBatch& events) {
  {
    absl::MutexLock lock(&mu_);
    if (finished_ || finish_requested_) return;
    if (replaying_) {
      // Published events are already stored: a page to come reads what is
      // dropped here.
      if (live_during_replay_.size() + events->size() > kMaxQueuedEvents) {
        live_during_replay_.clear();
      } else {
        for (const v1::RunEvent& event : *events) {
          live_during_replay_.push_back(Shared(events, event));
        }
      }
      return;
    }
    for (const v1::RunEvent& event : *events) AppendLocked(Shared(events, event));
  }
  Pump();
}

void WatchReactor::AppendLocked(std::shared_ptr<const v1::RunEvent> event) {
  if (event->seq() <= last_seq_ || run_over_) return;
  last_seq_ = event->seq();
  if (event->has_run_finished()) run_over_ = true;
  queue_.push_back(std::move(event));
  if (queue_.size() > kMaxQueuedEvents && !finish_requested_) {
    finish_requested_ = true;
    finish_status_ = grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("this watcher fell ", queue_.size(), " events behind run ", run_id_,
                     "; reconnect with after_seq set to the "
                     "last seq it received"));
  }
}

WatchLinger::Stream WatchReactor::LingerStateLocked() const {
  WatchLinger::Stream stream;
  stream.events_per_message = events_per_message_;
  stream.replaying = replaying_;
  stream.run_over = run_over_;
  stream.queued = queue_.size();
  stream.last_write = last_write_;
  stream.held = held_;
  return stream;
}

WatchReactor::Next WatchReactor::NextLocked() {
  Next next;
  // A pending page read still uses the reactor: no finish before it is back.
  if (writing_ || finished_ || page_pending_) return next;
  if (!finish_requested_ && !queue_.empty()) {
    const WatchLinger::Stream stream = LingerStateLocked();
    // Held: the alarm's callback writes, unless the run ended or a whole
    // message is queued meanwhile.
    if (holding_ && !WatchLinger::CutShort(stream)) return next;
    // Cut short: the write goes now, and the alarm is cancelled so that its
    // callback, which the end of the stream waits for, comes at once.
    if (holding_) next.cancel = hold_;
    if (!holding_ && WatchLinger::Hold(stream)) {
      holding_ = true;
      held_ = true;
      hold_ = std::make_shared<Hold>();
      next.hold = hold_;
      return next;
    }
    held_ = false;
    const size_t queued = queue_.size();
    // Empty: the last write's events went back when it was done.
    if (events_per_message_ == 1) {
      lent_.LendOne(std::move(queue_.front()), response_);
      queue_.pop_front();
    } else {
      // What queued while the last write was in flight goes out together,
      // within a client's default 4 MiB receive limit (kBatchBytes).
      TakeBounded(
          queue_, events_per_message_,
          [](const std::shared_ptr<const v1::RunEvent>& event) { return event->ByteSizeLong(); },
          [this](std::shared_ptr<const v1::RunEvent> event) {
            lent_.LendMore(std::move(event), response_);
          });
    }
    last_write_ = queued - queue_.size();
    writing_ = true;
    next.write = true;
  } else if (holding_) {
    // The alarm's callback still uses the reactor: the stream finishes
    // after it, brought forward (a run's end, a cancel, a shutdown).
    next.cancel = hold_;
  } else if (finish_requested_ || run_over_) {
    finished_ = true;
    next.finish = true;
    next.status = finish_requested_ ? finish_status_ : grpc::Status::OK;
  } else if (replaying_) {
    // The page is written: read the next one.
    page_pending_ = true;
    next.read_page = true;
  }
  return next;
}

// Outside the lock: a finished reactor may be deleted (OnDone) right after
// Finish, so nothing touches `this` after acting.
void WatchReactor::Act(const Next& next) {
  if (next.cancel != nullptr) {
    // Through the hold, not `this`: the callback may have run meanwhile and
    // the stream ended. Cancelling a fired (or not yet set) alarm does
    // nothing; the callback runs on gRPC's executor, never inside Cancel.
    absl::MutexLock lock(&next.cancel->mu);
    next.cancel->alarm.Cancel();
  }
  if (next.hold != nullptr) {
    absl::MutexLock lock(&next.hold->mu);
    // Expired or cancelled (ended early: NextLocked), the write goes.
    next.hold->alarm.Set(absl::ToChronoTime(absl::Now() + WatchLinger::kLinger),
                         [this](bool) { OnLingerDone(); });
  }
  if (next.read_page) pool_->Run([this] { ReplayPage(); });
  if (next.write) StartWrite(&response_);
  if (next.finish) Finish(next.status);
}

void WatchReactor::Pump() {
  Next next;
  {
    absl::MutexLock lock(&mu_);
    next = NextLocked();
  }
  Act(next);
}

void WatchReactor::OnLingerDone() {
  // One critical section: once holding_ is false another thread may finish
  // the stream and gRPC delete the reactor, so this callback must not take
  // the lock again after letting it go.
  Next next;
  {
    absl::MutexLock lock(&mu_);
    holding_ = false;
    next = NextLocked();
  }
  Act(next);
}

void WatchReactor::OnWriteDone(bool ok) {
  {
    absl::MutexLock lock(&mu_);
    lent_.Return(response_);
    writing_ = false;
    if (!ok && !finish_requested_) {
      finish_requested_ = true;
      finish_status_ = grpc::Status(grpc::StatusCode::CANCELLED, "the watcher went away");
    }
  }
  Pump();
}

void WatchReactor::OnCancel() {
  FinishEarly(grpc::Status(grpc::StatusCode::CANCELLED, "the watcher cancelled"));
}

void WatchReactor::FinishEarly(grpc::Status status) {
  {
    absl::MutexLock lock(&mu_);
    if (!finish_requested_) {
      finish_requested_ = true;
      finish_status_ = std::move(status);
    }
  }
  Pump();
}

void WatchReactor::OnDone() {
  {
    // Every write is done by now (OnWriteDone came first); in case one was
    // started and never reported, the events go back before response_ goes.
    absl::MutexLock lock(&mu_);
    lent_.Return(response_);
  }
  if (gate_ != nullptr) gate_->Untrack(tracked_);
  engine_->watch_hub().Unsubscribe(run_id_, subscription_);
  sink_->Detach();
  // The last alarm's callback ran before the finish; it may still be
  // returning on gRPC's executor, which keeps the alarm's state alive.
  delete this;
}

}  // namespace taskboard::server
