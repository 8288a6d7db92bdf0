#ifndef TASKBOARD_TOOLS_CLI_RUN_EVENT_STREAM_H_
#define TASKBOARD_TOOLS_CLI_RUN_EVENT_STREAM_H_

// One WatchRun call, read on a thread of its own so the caller can wait for
// events with a deadline (the live view animates meanwhile) and take every
// event that arrived while it was busy as one batch: a burst of task changes
// (a replay, a wide map) then costs one snapshot refresh, not one per event.
// The reader thread runs at a lower priority (kReaderNice, SCHED_BATCH), so
// that following a run on the machine that runs it does not slow the run.
// The call goes to the leader as far as the client knows; how it ended tells
// the client's channels where the leader is now (FailoverChannels::Observe).

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {

class RunEventStream {
 public:
  // The reader thread's nice value: it yields the CPU to a scheduler and
  // workers on the same machine (run_event_stream.cc).
  static constexpr int kReaderNice = 10;

  // Starts WatchRun(run_id, after_seq): the scheduler replays the events
  // with seq > after_seq, then streams new ones until the run finishes.
  RunEventStream(SchedulerClient& client, const std::string& run_id, int64_t after_seq);
  // Cancels the call if it is still open and joins the reader thread.
  ~RunEventStream();

  RunEventStream(const RunEventStream&) = delete;
  RunEventStream& operator=(const RunEventStream&) = delete;

  // Waits until an event arrived, the stream ended or `deadline` passed, then
  // returns every event received since the previous call, in order (none on
  // a timeout). Events that arrive before `not_before` wait for it, unless
  // one finishes the run or the stream ends: a follower that cannot show
  // them sooner takes them as one batch instead of waking for each message
  // of a busy run.
  std::vector<v1::RunEvent> Next(absl::Time deadline, absl::Time not_before = absl::InfinitePast());

  // True once the stream ended and Next returned its last events; status()
  // then says why (OK: the scheduler closed it after the run finished).
  bool ended() const;
  grpc::Status status() const;
  // Once ended: the replica asked does not lead and named the one that does,
  // which the client's next call goes to; reconnecting needs no wait.
  bool redirected() const;

 private:
  void ReadAll();
  bool HasNews() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Urgent() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  SchedulerClient& client_;
  std::string address_;  // the replica asked
  std::unique_ptr<v1::Scheduler::Stub> stub_;
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReader<v1::WatchRunResponse>> reader_;
  mutable absl::Mutex mu_;
  std::vector<v1::RunEvent> events_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  // events_ holds run_finished.
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  bool redirected_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once everything above exists
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_EVENT_STREAM_H_
