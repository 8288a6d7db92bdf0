#ifndef TASKBOARD_SCHEDULER_SERVER_WATCH_REACTOR_H_
#define TASKBOARD_SCHEDULER_SERVER_WATCH_REACTOR_H_

// One WatchRun stream: replays the run's stored events after `after_seq`,
// then tails live ones, without gaps or repeats, and finishes OK after
// `run_finished`. It subscribes to the engine's WatchHub before reading the
// store, so an event committed during the replay is delivered live (events
// are deduplicated by seq). The replay is read in pages of kReplayPage, the
// next one once the last is written, so a run of any length replays in
// bounded memory and never trips kMaxQueuedEvents. One write in flight;
// reactions never block (store reads run on the blocking pool). A small
// live write to a watcher that asked for batches may wait a few
// milliseconds for more events (WatchLinger, on a grpc::Alarm); the stream
// never finishes while the alarm is set, so its callback always finds the
// reactor alive, and a run's end, a cancel or a shutdown cancels the alarm
// so that the stream ends at once.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/alarm.h"
#include "scheduler/engine/engine.h"
#include "scheduler/server/blocking_pool.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/lent_events.h"
#include "scheduler/server/watch_linger.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::server {

class WatchReactor final : public grpc::ServerWriteReactor<v1::WatchRunResponse> {
 public:
  // A watcher this far behind is dropped with RESOURCE_EXHAUSTED (it can
  // reconnect with after_seq = the last seq it received).
  static constexpr size_t kMaxQueuedEvents = 100'000;
  // Stored events read per page of the replay.
  static constexpr size_t kReplayPage = 1'000;
  // The most events one response carries (WatchRunRequest's
  // max_events_per_message is capped here).
  static constexpr int kMaxEventsPerMessage = 1'000;

  // `tenant`: the only tenant whose runs the caller may watch (a run of
  // another tenant ends the stream with NOT_FOUND); nullopt: any.
  // `gate` (optional, outlives the stream) tracks it so that a revoked
  // token ends it (CallGate::CloseRevoked).
  static WatchReactor* Start(engine::Engine* engine, BlockingPool* pool,
                             const v1::WatchRunRequest& request,
                             std::optional<std::string> tenant = {}, const CallGate* gate = nullptr,
                             const grpc::CallbackServerContext* context = nullptr);

  // Ends the stream with `status` once no write is in flight and no write
  // is held (at most WatchLinger::kLinger), dropping what is queued
  // (cancelled, or the scheduler shutting down).
  void FinishEarly(grpc::Status status);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  class Sink;
  WatchReactor(engine::Engine* engine, BlockingPool* pool, const v1::WatchRunRequest& request,
               std::optional<std::string> tenant, const CallGate* gate,
               const grpc::CallbackServerContext* context);
  // Reads the next page of stored events (the first checks the run is
  // visible), on the blocking pool.
  void ReplayPage();
  void Deliver(const engine::EventBatch& events);
  void AppendLocked(std::shared_ptr<const v1::RunEvent> event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // What to do next (a write or the finish), decided under the lock and
  // done outside it.
  // One hold's alarm. Shared with the thread that ends the hold early,
  // which cancels it through its own reference: by then the callback may
  // have run and the reactor be gone.
  struct Hold {
    absl::Mutex mu;  // Set and Cancel never run at once
    grpc::Alarm alarm ABSL_GUARDED_BY(mu);
  };
  struct Next {
    bool write = false;
    bool finish = false;
    bool read_page = false;
    std::shared_ptr<Hold> hold;    // set its alarm
    std::shared_ptr<Hold> cancel;  // end this hold now (its callback still comes)
    grpc::Status status;
  };
  Next NextLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  WatchLinger::Stream LingerStateLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Act(const Next& next);
  void Pump();
  // The linger alarm went off: the held write goes now.
  void OnLingerDone();

  engine::Engine* engine_;
  BlockingPool* pool_;
  std::string run_id_;
  // 1: one event per response in `event`; more: up to this many in `events`.
  const int events_per_message_;
  const std::optional<std::string> tenant_;
  std::shared_ptr<Sink> sink_;
  uint64_t subscription_ = 0;
  const CallGate* gate_;
  uint64_t tracked_ = 0;

  absl::Mutex mu_;
  int64_t last_seq_ ABSL_GUARDED_BY(mu_);
  // Until a page comes back short: the replay has caught up with the store.
  bool replaying_ ABSL_GUARDED_BY(mu_) = true;
  // A page read is scheduled or running: the reactor must not finish (the
  // read uses it) until it is back.
  bool page_pending_ ABSL_GUARDED_BY(mu_) = true;
  bool checked_visible_ = false;  // pool thread only
  // Live events while replaying; past kMaxQueuedEvents they are dropped,
  // the store still has them for the pages to come.
  // Events are shared with every watcher of the run (engine::EventBatch),
  // and written without a copy (LentEvents).
  std::vector<std::shared_ptr<const v1::RunEvent>> live_during_replay_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<const v1::RunEvent>> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool run_over_ ABSL_GUARDED_BY(mu_) = false;  // run_finished queued
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status finish_status_ ABSL_GUARDED_BY(mu_);
  bool finish_requested_ ABSL_GUARDED_BY(mu_) = false;
  // The linger alarm is set and its callback has not run yet: the stream
  // must not finish (the callback uses the reactor), and no write starts
  // unless WatchLinger::CutShort.
  bool holding_ ABSL_GUARDED_BY(mu_) = false;
  // The next write was held already (it is not held twice).
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  size_t last_write_ ABSL_GUARDED_BY(mu_) = 0;
  // The current hold (a callback alarm is not set again while its callback
  // may run, so each hold has its own).
  std::shared_ptr<Hold> hold_ ABSL_GUARDED_BY(mu_);
  v1::WatchRunResponse response_;  // owned by the write in flight
  LentEvents lent_;                // in response_ until the write is done
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_WATCH_REACTOR_H_
