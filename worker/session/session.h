#ifndef TASKBOARD_WORKER_SESSION_SESSION_H_
#define TASKBOARD_WORKER_SESSION_SESSION_H_

// The worker's one stream to the scheduler (WorkerGateway.Connect, see
// proto/taskboard/v1/worker.proto) and everything that happens on it: Hello
// and Welcome, credits, running assignments in slots, live output, results
// kept until acknowledged, heartbeats, cancellation, drain, and reconnecting
// with backoff. Running tasks survive reconnects; only a drain ends Run.
// With several scheduler addresses (replicas), each reconnect goes to the
// leader as far as known: a replica that answers "not the leader" naming
// the leader sends the worker there at once, without backoff, and the
// leases re-attach through Hello.held_tasks as after a restart; an address
// that cannot be reached gives way to the next one after the backoff
// (common/failover/failover_channels.h,
// docs/operations.md#clients-and-replicated-schedulers).
//
//          +------------------- stream ends or fails ------------------+
//          v                                                           |
//   DOWN --Connect--> CONNECTING --Hello--> HANDSHAKING --Welcome--> READY
//    ^ (backoff)                                                       |
//    +-- never again once drained         drained: WritesDone, Finish  v
//                                                                   CLOSED
//
// Protocol decisions (the scheduler relies on them):
// - Hello.slots is the number of free places (slots plus the prefetch
//   queue, Hello.prefetch); afterwards each task that ends frees one, a
//   Credits{slots: 1}. No credits while draining. With --prefetch auto the
//   queue is resized as tasks end (worker/session/prefetch_sizer.h): growing
//   adds the new places to that credit, shrinking withholds it, and either
//   says the new size in Credits.prefetch. A queued assignment starts
//   when a slot frees, draining or not; when the drain grace period expires
//   the ones still queued are returned.
// - Per assignment: TaskStarted, OutputDelta (at most one per
//   output_interval), then TaskResult, then Credits{1}. A result waits for its
//   ResultAck and is sent again after every Welcome until then, unless the
//   Welcome revoked its lease.
// - Heartbeat{held leases} every heartbeat_interval (Welcome's, or 2 s).
// - Cancel stops the agent; its result says "cancelled: <reason>".
// - Tools (worker/session/tool_caller.h): Hello declares the registry's
//   tools; a task's ToolLookups and ToolObservations go out before its
//   TaskResult. An observation made while no stream is up is kept and sent
//   after the next Hello, before the results waiting for their ack. A
//   stream that ends releases the calls waiting for a ToolDecision. Command
//   agents reach the same path through a Unix socket
//   (worker/session/tool_socket_server.h) served while Run runs.
// - LLM calls (worker/session/llm_grants.h): when the Welcome says
//   governs_llm_calls, each model call sends an LlmGrantRequest and waits
//   for its LlmGrant, and sends an LlmCallReport after. Reports made while
//   no stream is up are sent after the next Welcome (if it governs), after
//   the kept observations, before the results.
// - Drain (scheduler) or Drain() (SIGTERM): Draining{grace_ms}, new
//   assignments are returned ("worker draining"), running tasks get the grace
//   period, then are cancelled and returned ("worker draining: grace period
//   expired"); then the stream is closed and Run returns.
//
// Threads: Run's caller reads the stream and reconnects; an Outbox thread per
// stream writes; a ticker thread sends heartbeats and coalesced output and
// watches the drain deadline (it is woken for a drain, not per task); each
// running task has its own thread, reused for the next task once it ends
// (TaskThreads), and a thread whose task ended runs the queued assignment
// its slot starts; the tool socket has its own threads (a queued assignment
// has none until it starts). All state is guarded by mu_, which is never
// held across a blocking call (ToolCaller's and LlmGrants' locks may be
// taken under it) nor while a task thread is started, and task threads
// build their reports before taking it.

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/backoff.h"
#include "common/failover/failover_channels.h"
#include "common/json.h"
#include "common/otel/tracer.h"
#include "grpcpp/security/credentials.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/agent.h"
#include "worker/agents/agent_registry.h"
#include "worker/agents/task_workspace.h"
#include "worker/session/llm_grants.h"
#include "worker/session/prefetch_sizer.h"
#include "worker/session/run_state_client.h"
#include "worker/session/task_book.h"
#include "worker/session/task_threads.h"
#include "worker/session/tool_caller.h"
#include "worker/session/tool_socket_server.h"
#include "worker/session/worker_metrics.h"
#include "worker/tools/tool_registry.h"

namespace taskboard::worker {

struct SessionOptions {
  // --scheduler: one address, several (replicas) comma-separated, or one
  // gRPC target such as dns:///name:port (ParseSchedulerTargets).
  std::string scheduler_address = "127.0.0.1:7233";
  std::string worker_id;
  int slots = 4;
  // Assignments taken ahead of the slots (--prefetch, Hello.prefetch): they
  // wait in a queue, holding their leases, and start the moment a slot
  // frees, so a busy worker's slots never wait a round trip for work.
  int prefetch = 0;
  // --prefetch auto: `prefetch` is the floor, and the queue grows up to
  // max_prefetch when tasks are shorter than the round trip to the scheduler
  // (worker/session/prefetch_sizer.h). max_prefetch <= prefetch: fixed.
  int max_prefetch = 0;
  std::string version;
  // For Drain() callers that pass none, and for a Drain message with
  // grace_ms <= 0.
  absl::Duration drain_grace = absl::Seconds(30);
  // Until a Welcome says otherwise.
  absl::Duration heartbeat_interval = absl::Seconds(2);
  absl::Duration output_interval = absl::Milliseconds(100);
  // Once drained tasks are done (or the grace period is over): how long the
  // last results may wait for their ResultAck before the stream is closed.
  absl::Duration drain_ack_wait = absl::Seconds(2);
  // Between reconnects and between addresses that cannot be reached.
  BackoffOptions backoff;
  // HTTP/2 keepalive on the stream (--keepalive-time-ms, at least 1 s, and
  // --keepalive-timeout-ms): a scheduler that vanished without closing the
  // connection is noticed, and reconnected to, in seconds.
  absl::Duration keepalive_time = absl::Seconds(10);
  absl::Duration keepalive_timeout = absl::Seconds(10);
  // Null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // Sent as `authorization: Bearer <token>` on every stream; empty: none.
  std::string token;
  // The tools agents may call; must outlive the Session. Null: none, and no
  // tool socket is served.
  const ToolRegistry* tools = nullptr;
  // Where tasks work (worker/agents/task_workspace.h): a fresh directory per
  // task, or the worker's --workspace-root. Tasks' cwds are relative to it and
  // may not leave it, and tool paths are confined to the task's directory.
  // Default: shared, the worker's own working directory.
  TaskWorkspaces workspaces = TaskWorkspaces::Shared({});
  ToolCallerOptions tool_caller;
  ToolSocketOptions tool_socket;
  LlmGrantsOptions llm_grants;
  // Slots, tasks, LLM usage, the connection, and (unless tool_caller or
  // llm_grants names its own) tool calls and grant waits; must outlive the
  // Session. Null: no metrics.
  WorkerMetrics* metrics = nullptr;
  // Spans for traced assignments (worker/session/attempt_trace.h); must
  // outlive the Session. Null: none recorded, and a traced assignment's
  // context still reaches its command agent (TRACEPARENT).
  const otel::Tracer* tracer = nullptr;
  // --trace-capture-content: the LLM spans of an assignment that allows it
  // (Assignment.trace_content_allowed) carry prompt and completion text.
  bool trace_capture_content = false;
};

class Session {
 public:
  // `agents` must outlive the Session.
  Session(SessionOptions options, const AgentRegistry& agents);
  // Run must have returned (or never been called).
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Serves until drained, reconnecting (with backoff) whenever the stream
  // fails, for as long as that takes. Returns OK once drained; INTERNAL
  // (naming the path) at once when the tool socket cannot be served;
  // INVALID_ARGUMENT at once when scheduler_address is not an address list.
  absl::Status Run();

  // Starts draining (from any thread, e.g. on SIGTERM). A second call can
  // shorten the grace period, never extend it.
  void Drain(absl::Duration grace, std::string reason);

  const std::string& incarnation() const { return incarnation_; }

  // The worker's readiness (/readyz): OK while connected to the scheduler
  // (Welcome received, stream up); UNAVAILABLE saying why otherwise. Quick
  // and thread-safe.
  absl::Status Readiness() const;

  // The tool socket's path while Run runs with tools; empty otherwise.
  std::string tool_socket_path() const;

 private:
  enum class State { kDown, kConnecting, kHandshaking, kReady };
  struct Connection;
  struct Task;
  struct Report;
  class Locked;
  class TaskContext;
  class Link;

  // Run's steps.
  bool Register(Connection* connection);
  // Logs the disconnect and waits `delay` before the next attempt; false
  // once drained (Run ends).
  bool WaitToReconnect(absl::Duration delay, const std::string& address, const absl::Status& why);
  void StartHandshake(Connection* connection);
  // Handles one message the scheduler sent (mutable: an assignment is moved
  // into its task, not copied).
  // A Welcome tells `channels` the scheduler answered (the backoff restarts).
  void Handle(v1::ConnectResponse& response, failover::FailoverChannels& channels);
  void HandleBatch(google::protobuf::RepeatedPtrField<v1::ConnectResponse>& messages,
                   failover::FailoverChannels& channels);
  // An assignment or a ResultAck: handles it and returns true; false for
  // any other message (left alone).
  bool HandleRoutineLocked(v1::ConnectResponse& message, std::vector<Task*>& started)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool Unregister();

  // What the scheduler says.
  void OnWelcome(const v1::Welcome& welcome);
  // Starts the assignment (appending it to `started`, for Launch), queues
  // it, or hands it back.
  void OnAssignmentLocked(v1::Assignment assignment, std::vector<Task*>& started)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts an assignment that holds a place in the book: stores its Task and
  // appends it to `started`, whose threads the caller starts with Launch
  // once it released mu_ (or fails it, when its agent or directory is not
  // there).
  void StartLocked(v1::Assignment assignment, std::vector<Task*>& started)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Starts queued assignments while slots are free (until a drain's grace
  // period expires), as StartLocked.
  void StartQueuedLocked(std::vector<Task*>& started) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs each started task on a task thread of its own. Not under mu_: a
  // task that ends at once would wait for it behind the thread starting it.
  void Launch(const std::vector<Task*>& started) ABSL_LOCKS_EXCLUDED(mu_);
  // Removes the queued assignment holding `lease_id` (and, unless null, of
  // `*task_id`) from the queue; nullopt when none is queued.
  std::optional<v1::Assignment> TakeQueuedLocked(absl::string_view lease_id,
                                                 const std::string* task_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends a queued assignment without running it: `report` goes out as its
  // final report, and its place frees.
  void EndQueuedLocked(const v1::Assignment& assignment, v1::ConnectRequest report)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnCancel(const v1::Cancel& cancel);
  // Reports a task that could not start (unknown agent, a cwd outside the
  // workspace root) as failed with `why`, and frees its slot.
  void FailBeforeStartLocked(const v1::Assignment& assignment, const absl::Status& why)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnResultAckLocked(const v1::ResultAck& ack) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The ToolCaller's and LlmGrants' way out (Link).
  bool SendToolLookup(v1::ConnectRequest lookup);
  // On the current stream once its Welcome came; false otherwise.
  bool SendToWelcomedStream(v1::ConnectRequest message);
  void SendToolObservation(v1::ConnectRequest observation);
  // Sends it, keeping it until its task's result is acknowledged when it is
  // a call run for the cache (unconfirmed_misses_).
  void SendObservationLocked(const v1::ConnectRequest& observation)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Task threads. RunTasks runs `task`, then, as long as each task that ends
  // starts a queued one, that one: a task thread whose task ended is free,
  // and handing the next task to another thread would cost a wake-up.
  void RunTasks(Task* task);
  void OnOutput(Task& task, absl::string_view delta);
  // Reports the task, frees its slot and forgets it; returns the queued task
  // that the freed slot started, for this thread to run (null: none).
  Task* OnTaskFinished(Task* task, AgentOutcome outcome) ABSL_LOCKS_EXCLUDED(mu_);

  // The ticker thread.
  void TickerLoop();
  absl::Time TickLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CloseLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Queues a message for the current stream, if there is one past Hello; it
  // goes to the Outbox with the rest of the section's when mu_ is released
  // (Locked) or FlushLocked is called.
  void SendLocked(v1::ConnectRequest message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Credits{1} for a freed slot, unless draining.
  void FreeSlotLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The final report: on the stream when READY, and kept until acked.
  void ReportLocked(const std::string& lease_id, Report report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  v1::ConnectRequest HelloLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Publishes the slot gauges (no-op without metrics).
  void UpdateSlotMetricsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Json LogFields() const;

  const SessionOptions options_;
  const AgentRegistry& agents_;
  const std::string incarnation_;
  // Stands in for options_.tools when that is null.
  ToolRegistry no_tools_;
  // Stands in for options_.tracer when that is null: records nothing.
  const otel::Tracer no_tracer_{otel::Sampler(), nullptr};
  const std::unique_ptr<Link> link_;
  const std::unique_ptr<ToolCaller> tool_caller_;
  const std::unique_ptr<LlmGrants> llm_grants_;
  // options_.scheduler_address parsed; Run fails with it when not OK.
  absl::Status targets_status_;
  // One channel per scheduler address; made in the constructor so that
  // Readiness and logs can name the current address from any thread.
  std::unique_ptr<failover::FailoverChannels> channels_;
  // Run storage calls on the current channel (run_state_client.h).
  std::unique_ptr<RunStateClient> run_state_;
  // Set by Run before the first task and reset after the last one, so task
  // threads read it without mu_.
  std::unique_ptr<ToolSocketServer> tool_socket_;

  mutable absl::Mutex mu_;
  absl::CondVar ticker_cv_;
  State state_ ABSL_GUARDED_BY(mu_) = State::kDown;
  Connection* connection_ ABSL_GUARDED_BY(mu_) = nullptr;
  // Its places are the slots plus the prefetch queue's current size.
  TaskBook book_ ABSL_GUARDED_BY(mu_);
  PrefetchSizer prefetch_sizer_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::unique_ptr<Task>> tasks_ ABSL_GUARDED_BY(mu_);
  // Assignments taken ahead of the slots (options_.prefetch), in arrival
  // order; each holds a place in book_.
  std::deque<v1::Assignment> queued_ ABSL_GUARDED_BY(mu_);
  absl::Duration heartbeat_interval_ ABSL_GUARDED_BY(mu_);
  absl::Time next_heartbeat_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool grace_expired_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time drain_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  // Drained: no reconnects; the stream is being closed.
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time close_deadline_ ABSL_GUARDED_BY(mu_) = absl::InfiniteFuture();
  bool stop_ticker_ ABSL_GUARDED_BY(mu_) = false;
  // What SendLocked queued in the current hold of mu_; empty between holds.
  std::vector<v1::ConnectRequest> unsent_ ABSL_GUARDED_BY(mu_);
  // Observations made while no stream was up, for the next one.
  // Observations made while no stream was up, sent after the next Welcome.
  std::deque<v1::ConnectRequest> kept_observations_ ABSL_GUARDED_BY(mu_);
  // Observations of calls this worker ran for the cache (a call id), sent
  // but not yet confirmed by the ack of their task's result: sent again
  // after each Welcome (the scheduler drops those it recorded), so a result
  // lost with a dying scheduler still reaches the cache.
  std::deque<v1::ConnectRequest> unconfirmed_misses_ ABSL_GUARDED_BY(mu_);

  // Last, so it is destroyed first: a task thread's last step (after
  // OnTaskFinished) may still be returning when Run returns.
  TaskThreads task_threads_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_SESSION_H_
