#include "tools/cli/run_follower.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "tools/cli/child_run_snapshots.h"
#include "tools/cli/live_view.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_errors.h"
#include "tools/cli/run_billing.h"
#include "tools/cli/run_event_stream.h"
#include "tools/cli/run_snapshot.h"
#include "tools/cli/run_states.h"

namespace taskboard::cli {
namespace {

constexpr absl::Duration kFirstBackoff = absl::Milliseconds(200);
constexpr absl::Duration kMaxBackoff = absl::Seconds(5);
// How often running child runs are polled: their progress raises no event
// on the followed run.
constexpr absl::Duration kChildRefresh = absl::Milliseconds(500);
// The view is updated, and a snapshot the events could not keep current is
// fetched again, at most this often.
constexpr absl::Duration kMinRefresh = absl::Milliseconds(50);

// A break the follower rides out by reconnecting: the scheduler restarting or
// the network dropping, as opposed to an answer such as NOT_FOUND.
// A watch that ended this way is resumed from the last event seen: the
// scheduler went away (UNAVAILABLE), this watcher fell too far behind
// (RESOURCE_EXHAUSTED), or the stream broke in transit.
bool Transient(const grpc::Status& status) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return true;
    default:
      return false;
  }
}

class Follower {
 public:
  Follower(SchedulerClient& client, absl::string_view command, const std::string& run_id,
           const FollowOptions& options, std::ostream& out, std::ostream& err)
      : client_(client),
        command_(command),
        run_id_(run_id),
        options_(options),
        out_(out),
        err_(err),
        view_(err, options.terminal) {}

  int Follow();

 private:
  // GetRun, whole or without tasks.
  grpc::Status Fetch(bool without_tasks, v1::Run* run);
  // Fetches the run, whole or without tasks (the replay brings them), as
  // the new snapshot.
  grpc::Status Reload(bool without_tasks);
  // Fetches the run whole as the new snapshot.
  grpc::Status Refresh();
  // The first snapshot: without tasks when the watch replays from seq 0.
  grpc::Status Start();
  // The finished run, for its output and billing: without tasks when the
  // snapshot holds them all, else whole (and whole for --json, which prints
  // it).
  grpc::Status FetchFinished();
  // Shows the snapshot, at most about a tenth of the time (see Refresh).
  void UpdateView();
  // Fetches the child runs' snapshots for the view (nested patterns) when
  // some are running and the last fetch is `kChildRefresh` old, or `force`.
  // A failed fetch keeps the old snapshots: the run's own stream reports a
  // scheduler that is gone.
  void RefreshChildren(bool force);
  // Reads one stream until the run finishes or the stream ends; returns why
  // it stopped (OK with `finished_` set when the run is over).
  grpc::Status Tail(int64_t* after_seq);
  void PrintResult();

  SchedulerClient& client_;
  const absl::string_view command_;
  const std::string& run_id_;
  const FollowOptions& options_;
  std::ostream& out_;
  std::ostream& err_;
  LiveView view_;
  RunSnapshot snapshot_;
  // An event could not be applied to the snapshot; it is fetched again at
  // next_refresh_.
  bool stale_ = false;
  absl::Time next_refresh_ = absl::InfinitePast();
  // The snapshot changed since the view last showed it; it shows it again
  // at next_view_.
  bool view_stale_ = false;
  absl::Time next_view_ = absl::InfinitePast();
  // A stream broke: the next one starts from a fresh snapshot.
  bool reconnecting_ = false;
  // The last stream was answered by a replica that does not lead, naming the
  // one that does (RunEventStream::redirected).
  bool redirected_ = false;
  bool finished_ = false;
  absl::flat_hash_map<std::string, v1::Run> children_;
  absl::Time children_fetched_ = absl::InfinitePast();
};

void Follower::RefreshChildren(bool force) {
  const v1::Run& run = snapshot_.run();
  if (options_.json || run.child_run_ids().empty()) return;
  const absl::Time now = absl::Now();
  if (!force && (now - children_fetched_ < kChildRefresh || !ChildRunsUnsettled(run, children_))) {
    return;
  }
  children_fetched_ = now;
  if (FetchChildRuns(client_, run, &children_).ok()) view_.UpdateChildren(children_);
}

grpc::Status Follower::Fetch(bool without_tasks, v1::Run* run) {
  const absl::Time start = absl::Now();
  v1::GetRunRequest request;
  request.set_run_id(run_id_);
  request.set_without_tasks(without_tasks);
  v1::GetRunResponse response;
  grpc::Status status = client_.Call(&v1::Scheduler::Stub::GetRun, request, &response);
  if (status.ok()) *run = std::move(*response.mutable_run());
  // A snapshot costs both sides in proportion to the run's tasks: a large,
  // busy run is refreshed less often, so following it never takes more than
  // about a tenth of the time.
  const absl::Time end = absl::Now();
  next_refresh_ = end + std::max(kMinRefresh, (end - start) * 9);
  return status;
}

grpc::Status Follower::Reload(bool without_tasks) {
  v1::Run run;
  grpc::Status status = Fetch(without_tasks, &run);
  if (!status.ok()) return status;
  if (without_tasks) {
    snapshot_.ResetWithoutTasks(std::move(run));
  } else {
    snapshot_.Reset(std::move(run));
  }
  stale_ = false;
  view_stale_ = true;
  return status;
}

grpc::Status Follower::Refresh() { return Reload(/*without_tasks=*/false); }

grpc::Status Follower::Start() {
  // Watching from a later seq (a resume) replays only part of the tasks.
  return Reload(/*without_tasks=*/options_.after_seq == 0);
}

grpc::Status Follower::FetchFinished() {
  if (options_.json || stale_) return Refresh();
  v1::Run run;
  if (grpc::Status status = Fetch(/*without_tasks=*/true, &run); !status.ok()) return status;
  return snapshot_.RefreshWithoutTasks(std::move(run)) ? grpc::Status::OK : Refresh();
}

void Follower::UpdateView() {
  // Showing a run looks at each of its tasks (the log compares their states
  // with what it printed): a large run is shown less often, and a view of
  // 100,000 tasks gains nothing from redrawing every few milliseconds.
  const absl::Time start = absl::Now();
  view_.Update(snapshot_.run(), start, snapshot_.TakeChangedTasks());
  view_stale_ = false;
  const absl::Time end = absl::Now();
  next_view_ = end + std::max(kMinRefresh, (end - start) * 9);
}

grpc::Status Follower::Tail(int64_t* after_seq) {
  if (reconnecting_ && !options_.json) {
    // The replay would cover the gap, but a stream breaks rarely and a fresh
    // snapshot is sure to be right.
    if (grpc::Status status = Refresh(); !status.ok()) return status;
  }
  reconnecting_ = true;
  RunEventStream stream(client_, run_id_, *after_seq);
  while (true) {
    // Events wait until the view may show them (the run's end does not):
    // waking for every message of a busy run cost the CLI more than
    // applying its events.
    const absl::Time now = absl::Now();
    std::vector<v1::RunEvent> batch =
        stream.Next(now + options_.tick, options_.json ? absl::InfinitePast()
                                                       : std::min(next_view_, now + options_.tick));
    for (v1::RunEvent& event : batch) {
      // Tool calls are counted, so an event seen before (a scheduler that
      // replays more than asked after a reconnect) must not count twice.
      const bool seen = event.seq() <= *after_seq;
      *after_seq = std::max(*after_seq, event.seq());
      if (options_.json) {
        out_ << ProtoToJsonLine(event) << "\n";
      } else if (event.has_warning()) {
        view_.Note(absl::StrCat("warning: ", event.warning().message()), absl::Now());
      } else if (event.has_observation() && !seen) {
        view_.AddToolCall(event.observation().observation());
      }
      const bool finishes = event.has_run_finished();
      finished_ |= finishes;
      if (!options_.json) {
        switch (snapshot_.Apply(std::move(event))) {
          case RunSnapshot::Applied::kChanged:
            view_stale_ = true;
            break;
          case RunSnapshot::Applied::kNeedsFetch:
            // A run_finished cut to --max-event-bytes (a large map's
            // output) leaves the tasks as they are: the end fetch, without
            // tasks, brings the rest whole. Fetching 100,000 tasks for it
            // cost 320 ms after the run ended.
            stale_ = stale_ || !finishes;
            break;
          case RunSnapshot::Applied::kUnchanged:
            break;
        }
      }
    }
    if (options_.json) out_.flush();
    // Follow fetches the finished run once, for its output and billing.
    if (finished_) return grpc::Status::OK;
    if (stale_ && absl::Now() >= next_refresh_) {
      if (grpc::Status status = Refresh(); !status.ok()) return status;
    }
    if (view_stale_ && !options_.json && absl::Now() >= next_view_) UpdateView();
    RefreshChildren(/*force=*/false);
    view_.Tick(absl::Now());
    if (stream.ended()) break;
  }
  grpc::Status status = stream.status();
  redirected_ = stream.redirected();
  if (!status.ok()) return status;
  // Closed without run_finished: the run may have ended between our replay
  // and the live tail; the run itself says whether to keep watching.
  if (status = Refresh(); status.ok() && IsSettled(snapshot_.run().status())) finished_ = true;
  return status.ok() && !finished_ ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "watch closed")
                                   : status;
}

void Follower::PrintResult() {
  const v1::Run& run = snapshot_.run();
  if (!run.output().empty()) {
    out_ << run.output();
    if (run.output().back() != '\n') out_ << "\n";
    out_.flush();
  }
  if (BillingWorthShowing(run)) err_ << BilledLine(run) << "\n";
  if (run.status() == v1::RUN_STATUS_COMPLETED) return;
  const std::string status = RunStatusName(run.status());
  err_ << command_ << ": run " << run.run_id() << " " << status;
  if (!run.error().empty()) {
    // "run r-1 paused: run r-1's budget ...", not "paused: paused: ...".
    absl::string_view error = run.error();
    // "timed_out" reads "timed out: ..." in the error.
    absl::ConsumePrefix(&error, absl::StrCat(absl::StrReplaceAll(status, {{"_", " "}}), ": "));
    err_ << ": " << error;
  }
  err_ << "\n";
  if (std::string hint = BudgetResumeHint(run); !hint.empty()) {
    err_ << "  " << hint << "\n";
  } else if (IsSettled(run.status())) {
    err_ << "  resume it with `taskboard resume " << run.run_id() << "`\n";
  }
}

int Follower::Follow() {
  if (grpc::Status status = Start(); !status.ok()) {
    return ReportRpcError(command_, client_.address(), status, err_);
  }
  if (!options_.json) UpdateView();
  int64_t after_seq = options_.after_seq;
  std::optional<absl::Time> down_since;
  absl::Duration backoff = kFirstBackoff;
  while (!finished_) {
    const int64_t seen = after_seq;
    grpc::Status status = Tail(&after_seq);
    if (finished_) break;
    if (!Transient(status)) return ReportRpcError(command_, client_.address(), status, err_);
    if (after_seq > seen || redirected_) {
      // The stream delivered before it broke, or the replica asked named the
      // leader: resume from there at once, silently (nothing was missed,
      // and a scheduler is answering). After a failover the new leader
      // replays what this one did not see
      // (docs/operations.md#clients-and-replicated-schedulers).
      down_since.reset();
      backoff = kFirstBackoff;
      continue;
    }
    const absl::Time now = absl::Now();
    if (!down_since) {
      down_since = now;
      view_.Note(absl::StrCat("lost the watch on ", client_.address(), " (", status.error_message(),
                              "); reconnecting"),
                 now);
    } else if (now - *down_since >= options_.reconnect_window) {
      err_ << command_ << ": cannot reach the scheduler at " << client_.address() << " for "
           << absl::FormatDuration(options_.reconnect_window) << ": " << status.error_message()
           << "\n  the run goes on; follow it later with `taskboard watch " << run_id_ << "`\n";
      return 2;
    }
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
  if (grpc::Status status = FetchFinished(); !status.ok()) {
    return ReportRpcError(command_, client_.address(), status, err_);
  }
  if (options_.json) {
    out_ << ProtoToJsonLine(snapshot_.run()) << "\n";
  } else {
    view_.Update(snapshot_.run(), absl::Now(), snapshot_.TakeChangedTasks());
    RefreshChildren(/*force=*/true);
    view_.Finish(absl::Now());
    PrintResult();
  }
  return ExitCodeForRun(snapshot_.run().status());
}

}  // namespace

int FollowRun(SchedulerClient& client, absl::string_view command, const std::string& run_id,
              const FollowOptions& options, std::ostream& out, std::ostream& err) {
  return Follower(client, command, run_id, options, out, err).Follow();
}

}  // namespace taskboard::cli
