#include "worker/session/session.h"

#include <algorithm>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/failover/scheduler_targets.h"
#include "common/log/log.h"
#include "common/tool_allow_list.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "taskboard/v1/worker.grpc.pb.h"
#include "worker/base/cancel_token.h"
#include "worker/session/attempt_trace.h"
#include "worker/session/outbox.h"
#include "worker/session/output_coalescer.h"
#include "worker/session/requests.h"

namespace taskboard::worker {
namespace {

// After WritesDone: how long the scheduler has to end the stream.
constexpr absl::Duration kCloseWait = absl::Seconds(5);
// Assignments carry prior work; results carry up to 4 MiB of output.
constexpr int kMaxMessageBytes = 64 << 20;

constexpr char kDrainingReason[] = "worker draining";
constexpr char kGraceExpiredReason[] = "worker draining: grace period expired";
constexpr char kRevokedReason[] = "lease revoked by the scheduler";
// Observations kept for the next stream beyond this are dropped (oldest
// first): a worker cut off that long has lost its leases anyway.
constexpr size_t kMaxKeptObservations = 10'000;

// Drops the observations of `lease_id` from `observations`.
void ForgetObservationsOf(const std::string& lease_id,
                          std::deque<v1::ConnectRequest>& observations) {
  observations.erase(std::remove_if(observations.begin(), observations.end(),
                                    [&](const v1::ConnectRequest& message) {
                                      return message.observation().lease_id() == lease_id;
                                    }),
                     observations.end());
}

ToolCallerOptions ToolCallerOptionsFor(const SessionOptions& options) {
  ToolCallerOptions tool_caller = options.tool_caller;
  if (tool_caller.metrics == nullptr) tool_caller.metrics = options.metrics;
  return tool_caller;
}

LlmGrantsOptions LlmGrantsOptionsFor(const SessionOptions& options) {
  LlmGrantsOptions llm_grants = options.llm_grants;
  if (llm_grants.metrics == nullptr) llm_grants.metrics = options.metrics;
  return llm_grants;
}

// A finished run's label in taskboard_worker_tasks_total.
TaskOutcome OutcomeOf(bool succeeded, bool returned, bool cancelled) {
  if (returned) return TaskOutcome::kReturned;
  if (succeeded) return TaskOutcome::kSucceeded;
  return cancelled ? TaskOutcome::kCancelled : TaskOutcome::kFailed;
}

std::string NewIncarnation() {
  absl::BitGen random;
  return absl::StrFormat("%016x", absl::Uniform<uint64_t>(random));
}

}  // namespace

struct Session::Connection {
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>> stream;
  // Set once the stream exists (under mu_).
  std::unique_ptr<Outbox> outbox;
  // TryCancel was called (by the ticker, under mu_), once is enough.
  bool cancelled = false;
};

struct Session::Task {
  Task(v1::Assignment assignment, const Agent* agent, absl::Duration output_interval)
      : assignment(std::move(assignment)), agent(agent), output(output_interval) {}

  const v1::Assignment assignment;
  const Agent* const agent;
  // Where it works (TaskDirectory): its tools' paths are confined to it.
  std::filesystem::path directory;
  // TaskWorkspaces::Open made it (Close removes it); false for an agent
  // that needs none.
  bool opened_directory = false;
  // When the task took its slot (taskboard_worker_task_duration_seconds).
  const absl::Time started = absl::Now();
  CancelToken cancel;
  OutputCoalescer output;
  // Its TaskStarted went out (a task started while no stream was up sends
  // it after the next Welcome).
  bool announced = false;
  // Set when the drain grace period expired: report TaskReturned instead of
  // the agent's outcome.
  bool returned = false;
};

// A final report (TaskResult or TaskReturned): the message for the stream
// and the copy the book keeps until its ack, made by whoever builds it (a
// task thread does so before it takes mu_).
struct Session::Report {
  explicit Report(v1::ConnectRequest message) : kept(message), sent(std::move(message)) {}

  v1::ConnectRequest kept;
  v1::ConnectRequest sent;
};

// A hold of mu_ that, as it ends, sends what the section queued with
// SendLocked in one Outbox push: the writer wakes once per section (a task's
// result and credit, a batch's TaskStarted messages), not once per message,
// and order across threads stays the order of the sections.
class ABSL_SCOPED_LOCKABLE Session::Locked {
 public:
  explicit Locked(Session* session) ABSL_EXCLUSIVE_LOCK_FUNCTION(session->mu_) : session_(session) {
    session_->mu_.Lock();
  }
  // The analysis cannot see that mu_ is held here (it is, from the constructor).
  ~Locked() ABSL_UNLOCK_FUNCTION() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    session_->FlushLocked();
    session_->mu_.Unlock();
  }
  Locked(const Locked&) = delete;
  Locked& operator=(const Locked&) = delete;

 private:
  Session* const session_;
};

class Session::TaskContext : public AgentContext {
 public:
  TaskContext(Session* session, Task* task, const Agent* agent, const TaskTrace* trace)
      : session_(session),
        task_(task),
        trace_(trace),
        allowed_tools_(task->assignment.tools(), agent->allowed_tools()),
        llm_gate_(*session->llm_grants_, LlmTask{.task_id = task->assignment.task_id(),
                                                 .lease_id = task->assignment.lease_id(),
                                                 .run_id = task->assignment.run_id()}) {
    const v1::Assignment& assignment = task->assignment;
    flow_state_.run_id = assignment.run_id();
    flow_state_.task_id = assignment.task_id();
    flow_state_.root_run_id =
        assignment.root_run_id().empty() ? assignment.run_id() : assignment.root_run_id();
    flow_state_.parent_run_id = assignment.parent_run_id();
    flow_state_.lease_id = assignment.lease_id();
    flow_state_.agent = assignment.agent();
    flow_state_.attempt = assignment.attempt();
    flow_state_.storage = session->run_state_.get();
    flow_state_.conversation = &conversation_;
    // A grant of its own for the task's command tools and stdio MCP
    // servers, so that they can run `taskboard state` (docs/mcp.md#flowstate).
    if (session->tool_socket_ != nullptr) {
      tokens_.push_back(session->tool_socket_->Grant(ToolTaskIn(task->directory)));
      flow_state_.tool_environment = {{"TASKBOARD_TOOL_SOCKET", session->tool_socket_->path()},
                                      {"TASKBOARD_TASK_TOKEN", tokens_.back()}};
    }
  }
  // Tool calls through the socket end with the task: they would otherwise
  // be observed after its result.
  ~TaskContext() override {
    for (const std::string& token : tokens_) session_->tool_socket_->Revoke(token);
  }

  void EmitOutput(absl::string_view delta) override { session_->OnOutput(*task_, delta); }
  std::filesystem::path directory() const override { return task_->directory; }
  const CancelToken& cancellation() const override { return task_->cancel; }
  LlmCallGate* llm_gate() override { return &llm_gate_; }
  const TaskTrace* trace() const override { return trace_; }
  ConversationLog* conversation_log() override { return &conversation_; }

  absl::StatusOr<ToolCallResult> CallTool(absl::string_view name,
                                          absl::string_view args_json) override {
    return session_->tool_caller_->Call(ToolTaskIn(task_->directory), name, args_json);
  }

  std::vector<v1::ToolDeclaration> ToolDeclarations() const override {
    return session_->tool_caller_->registry().Declarations();
  }

  std::vector<std::pair<std::string, std::string>> ToolEnvironment(
      const std::filesystem::path& workdir) override {
    if (session_->tool_socket_ == nullptr) return {};
    tokens_.push_back(session_->tool_socket_->Grant(ToolTaskIn(workdir)));
    return {{"TASKBOARD_TOOL_SOCKET", session_->tool_socket_->path()},
            {"TASKBOARD_TASK_TOKEN", tokens_.back()}};
  }

 private:
  ToolTask ToolTaskIn(std::filesystem::path workdir) const {
    const v1::Assignment& assignment = task_->assignment;
    ToolTask tool_task;
    tool_task.task_id = assignment.task_id();
    tool_task.lease_id = assignment.lease_id();
    tool_task.workdir = std::move(workdir);
    tool_task.cache_overrides.insert(assignment.tool_cache_overrides().begin(),
                                     assignment.tool_cache_overrides().end());
    tool_task.cancel = &task_->cancel;
    tool_task.allowed = allowed_tools_;
    tool_task.trace = trace_;
    tool_task.flow_state = &flow_state_;
    return tool_task;
  }

  Session* const session_;
  Task* const task_;
  // Null: the attempt is not traced.
  const TaskTrace* const trace_;
  // The phase's `tools` narrowed by the agent file's (common/tool_allow_list.h).
  const ToolAllowList allowed_tools_;
  // Socket grants (used from the thread running the agent only).
  std::vector<std::string> tokens_;
  LlmTaskGate llm_gate_;
  // What the task's tools read about where they run (flow_state.h).
  ConversationLog conversation_;
  FlowState flow_state_;
};

class Session::Link : public ToolLink, public LlmGrantLink {
 public:
  explicit Link(Session* session) : session_(session) {}
  bool SendLookup(v1::ConnectRequest lookup) override {
    return session_->SendToolLookup(std::move(lookup));
  }
  void SendObservation(v1::ConnectRequest observation) override {
    session_->SendToolObservation(std::move(observation));
  }
  bool Send(v1::ConnectRequest message) override {
    return session_->SendToWelcomedStream(std::move(message));
  }

 private:
  Session* const session_;
};

Session::Session(SessionOptions options, const AgentRegistry& agents)
    : options_(std::move(options)),
      agents_(agents),
      incarnation_(NewIncarnation()),
      link_(std::make_unique<Link>(this)),
      tool_caller_(
          std::make_unique<ToolCaller>(options_.tools != nullptr ? *options_.tools : no_tools_,
                                       *link_, ToolCallerOptionsFor(options_))),
      llm_grants_(std::make_unique<LlmGrants>(*link_, LlmGrantsOptionsFor(options_))),
      book_(options_.slots + options_.prefetch),
      prefetch_sizer_(options_.slots, options_.prefetch,
                      std::max(options_.prefetch, options_.max_prefetch)),
      heartbeat_interval_(options_.heartbeat_interval),
      task_threads_(static_cast<size_t>(std::max(options_.slots, 1))) {
  absl::StatusOr<std::vector<std::string>> targets =
      failover::ParseSchedulerTargets(options_.scheduler_address);
  targets_status_ = targets.status();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS,
              static_cast<int>(absl::ToInt64Milliseconds(options_.keepalive_time)));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
              static_cast<int>(absl::ToInt64Milliseconds(options_.keepalive_timeout)));
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  // gRPC's own reconnect backoff (up to 2 minutes by default) would otherwise
  // hold back the attempts our backoff makes: FailoverChannels sets it to
  // options_.backoff. Not GRPC_ARG_MIN_RECONNECT_BACKOFF_MS: gRPC takes it
  // as the minimum connect timeout, and at 100 ms a handshake with a busy,
  // just restarted scheduler was cut off attempt after attempt (a worker
  // took 8 s to come back and lost its leases).
  failover::FailoverOptions failover_options;
  failover_options.backoff = options_.backoff;
  channels_ = std::make_unique<failover::FailoverChannels>(
      targets.ok() ? *std::move(targets) : std::vector<std::string>{options_.scheduler_address},
      options_.credentials, std::move(args), failover_options);
  run_state_ = std::make_unique<RunStateClient>(
      [channels = channels_.get()] { return channels->Current(); }, options_.token);
  Locked lock(this);
  UpdateSlotMetricsLocked();
  if (options_.metrics != nullptr) options_.metrics->SetConnected(false);
}

Session::~Session() = default;  // here, where Task is complete

Json Session::LogFields() const {
  return {{"worker_id", options_.worker_id}, {"scheduler", channels_->address()}};
}

absl::Status Session::Readiness() const {
  absl::MutexLock lock(&mu_);  // sends nothing
  if (state_ == State::kReady) return absl::OkStatus();
  const char* state = "disconnected";
  if (closed_) {
    state = "drained";
  } else if (state_ == State::kConnecting) {
    state = "connecting";
  } else if (state_ == State::kHandshaking) {
    state = "waiting for the scheduler's Welcome";
  }
  return absl::UnavailableError(
      absl::StrCat("not connected to the scheduler at ", channels_->address(), " (", state, ")"));
}

void Session::UpdateSlotMetricsLocked() {
  if (options_.metrics != nullptr) {
    // Queued assignments wait for a slot; they do not occupy one.
    const int busy = book_.running() - static_cast<int>(queued_.size());
    options_.metrics->SetSlots(busy, std::max(0, options_.slots - busy));
  }
}

std::string Session::tool_socket_path() const {
  absl::MutexLock lock(&mu_);  // sends nothing
  return tool_socket_ != nullptr ? tool_socket_->path() : "";
}

absl::Status Session::Run() {
  if (!targets_status_.ok()) return targets_status_;
  if (options_.tools != nullptr) {
    absl::StatusOr<std::unique_ptr<ToolSocketServer>> socket =
        ToolSocketServer::Start(*tool_caller_, options_.tool_socket);
    if (!socket.ok()) {
      return absl::InternalError(
          absl::StrCat("cannot serve tools to command agents: ", socket.status().message()));
    }
    log::Info("serving tools")
        .Fields(LogFields())
        .With("socket", (*socket)->path())
        .With("tools", options_.tools->Names());
    Locked lock(this);
    tool_socket_ = *std::move(socket);
  }
  std::thread ticker([this] { TickerLoop(); });
  while (true) {
    std::string address;
    std::shared_ptr<grpc::Channel> channel = channels_->Current(&address);
    // One address: wait for the channel to connect rather than fail at once
    // while the scheduler restarts: gRPC's own reconnect attempts (100 ms,
    // growing) then find it within moments of its return, where failing
    // fast would stack our backoff on top (workers took up to 8 s, past
    // their leases). Several: an address that does not connect must not
    // hold the worker while another replica leads, so the connection is
    // awaited for a bounded time first (FailoverOptions::connect_timeout).
    const bool one_address = channels_->size() == 1;
    if (!one_address) {
      if (absl::Status connected = failover::WaitForConnection(
              *channel, absl::Now() + failover::FailoverOptions().connect_timeout);
          !connected.ok()) {
        if (!WaitToReconnect(channels_->Unreachable(address, connected), address, connected)) {
          break;
        }
        continue;
      }
    }
    std::unique_ptr<v1::WorkerGateway::Stub> stub = v1::WorkerGateway::NewStub(channel);
    auto connection = std::make_unique<Connection>();
    if (!Register(connection.get())) break;
    if (!options_.token.empty()) {
      connection->context.AddMetadata("authorization", absl::StrCat("Bearer ", options_.token));
    }
    connection->context.set_wait_for_ready(one_address);
    connection->stream = stub->Connect(&connection->context);
    StartHandshake(connection.get());
    v1::ConnectResponse response;
    while (connection->stream->Read(&response)) Handle(response, *channels_);
    const grpc::Status status = connection->stream->Finish();
    const bool closed = Unregister();
    // A replica that does not lead names the leader (read before the
    // context goes).
    const bool redirected = !failover::LeaderHint(connection->context).empty();
    absl::Duration delay;
    if (redirected) delay = channels_->Observe(address, status, connection->context);
    // Unblocks a Write stuck on a dead peer so the Outbox can join.
    connection->context.TryCancel();
    connection.reset();
    if (closed) break;
    // gRPC and Abseil share their status code numbers.
    const absl::Status why(static_cast<absl::StatusCode>(status.error_code()),
                           status.error_message());
    // A redirect is no failure and costs no wait. Any other end of the
    // stream is a disconnect, retried after the backoff (on the next
    // address, when there are several).
    if (!redirected) delay = channels_->Unreachable(address, why);
    if (!WaitToReconnect(delay, address, why)) break;
  }

  {
    Locked lock(this);
    stop_ticker_ = true;
    ticker_cv_.Signal();
  }
  ticker.join();
  std::unique_ptr<ToolSocketServer> socket;
  {
    Locked lock(this);
    socket = std::move(tool_socket_);
  }
  socket.reset();  // joins its threads: not under mu_
  log::Info("drained; exiting").Fields(LogFields());
  return absl::OkStatus();
}

bool Session::WaitToReconnect(absl::Duration delay, const std::string& address,
                              const absl::Status& why) {
  log::Info("disconnected from scheduler; reconnecting")
      .Fields(LogFields())
      .With("from", address)
      .With("error", why)
      .With("retry_in_ms", absl::ToInt64Milliseconds(delay))
      .With("attempt", channels_->failed_attempts());
  Locked lock(this);
  mu_.AwaitWithTimeout(absl::Condition(&closed_), delay);
  return !closed_;
}

bool Session::Register(Connection* connection) {
  Locked lock(this);
  if (closed_) return false;
  connection_ = connection;
  state_ = State::kConnecting;
  return true;
}

void Session::StartHandshake(Connection* connection) {
  Locked lock(this);
  connection->outbox = std::make_unique<Outbox>(connection->stream.get());
  if (closed_) {
    // Drained while connecting: no Hello; the cancelled call ends at once.
    connection->context.TryCancel();
    return;
  }
  state_ = State::kHandshaking;
  // Hello and the credits that follow are sequenced under mu_: a slot that
  // frees before this point is counted in Hello.slots, one that frees after
  // it is a Credits message behind Hello in the outbox.
  SendLocked(HelloLocked());
  if (draining_) {
    SendLocked(DrainingRequest(
        std::max<int64_t>(0, absl::ToInt64Milliseconds(drain_deadline_ - absl::Now()))));
  }
  next_heartbeat_ = absl::Now() + heartbeat_interval_;
  ticker_cv_.Signal();
}

bool Session::Unregister() {
  Locked lock(this);
  connection_ = nullptr;
  state_ = State::kDown;
  if (options_.metrics != nullptr) {
    options_.metrics->SetConnected(false);
    // Counted with the state change, so whoever sees the worker not ready
    // (/readyz) sees the reconnect it is making.
    if (!closed_) options_.metrics->Reconnecting();
  }
  for (auto& [lease_id, task] : tasks_) task->output.Clear();
  // Lookups and grant requests sent on this stream will never be answered.
  tool_caller_->OnStreamLost();
  llm_grants_->OnStreamLost();
  return closed_;
}

v1::ConnectRequest Session::HelloLocked() const {
  v1::ConnectRequest message;
  v1::Hello* hello = message.mutable_hello();
  hello->set_worker_id(options_.worker_id);
  hello->set_incarnation(incarnation_);
  for (v1::AgentInfo& info : agents_.Advertised()) *hello->add_agents() = std::move(info);
  hello->set_slots(draining_ ? 0 : std::max(0, book_.free_slots()));
  hello->set_version(options_.version);
  hello->set_accepts_batches(true);
  hello->set_prefetch(book_.slots() - options_.slots);
  for (v1::HeldTask& task : book_.Held()) *hello->add_held_tasks() = std::move(task);
  for (v1::ToolDeclaration& tool : tool_caller_->registry().Declarations()) {
    *hello->add_tools() = std::move(tool);
  }
  return message;
}

void Session::Handle(v1::ConnectResponse& response, failover::FailoverChannels& channels) {
  switch (response.msg_case()) {
    case v1::ConnectResponse::kWelcome:
      OnWelcome(response.welcome());
      channels.Connected();
      break;
    case v1::ConnectResponse::kAssignment:
    case v1::ConnectResponse::kResultAck: {
      std::vector<Task*> started;
      {
        Locked lock(this);
        HandleRoutineLocked(response, started);
      }
      Launch(started);
      break;
    }
    case v1::ConnectResponse::kCancel:
      OnCancel(response.cancel());
      break;
    case v1::ConnectResponse::kDrain:
      Drain(response.drain().grace_ms() > 0 ? absl::Milliseconds(response.drain().grace_ms())
                                            : options_.drain_grace,
            response.drain().reason().empty() ? "scheduler asked" : response.drain().reason());
      break;
    case v1::ConnectResponse::kToolDecision:
      tool_caller_->OnDecision(response.tool_decision());
      break;
    case v1::ConnectResponse::kLlmGrant:
      llm_grants_->OnGrant(response.llm_grant());  // not under mu_: it may send
      break;
    case v1::ConnectResponse::kBatch:
      HandleBatch(*response.mutable_batch()->mutable_messages(), channels);
      break;
    case v1::ConnectResponse::MSG_NOT_SET:
      break;
  }
}

void Session::HandleBatch(google::protobuf::RepeatedPtrField<v1::ConnectResponse>& messages,
                          failover::FailoverChannels& channels) {
  // In order, as if written one by one; a nested batch is a scheduler bug
  // and is skipped rather than recursed into. Assignments and acks, most of
  // a busy stream, are handled a run at a time under one hold of mu_: one
  // push of the TaskStarted messages, and their threads started after it.
  int next = 0;
  while (next < messages.size()) {
    v1::ConnectResponse& message = *messages.Mutable(next);
    if (!message.has_assignment() && !message.has_result_ack()) {
      if (!message.has_batch()) Handle(message, channels);
      ++next;
      continue;
    }
    std::vector<Task*> started;
    {
      Locked lock(this);
      while (next < messages.size() && HandleRoutineLocked(*messages.Mutable(next), started)) {
        ++next;
      }
    }
    Launch(started);
  }
}

bool Session::HandleRoutineLocked(v1::ConnectResponse& message, std::vector<Task*>& started) {
  if (message.has_assignment()) {
    OnAssignmentLocked(std::move(*message.mutable_assignment()), started);
    return true;
  }
  if (message.has_result_ack()) {
    OnResultAckLocked(message.result_ack());
    return true;
  }
  return false;
}

void Session::OnWelcome(const v1::Welcome& welcome) {
  Locked lock(this);
  if (state_ != State::kHandshaking) return;
  state_ = State::kReady;
  if (welcome.accepts_batches()) connection_->outbox->AllowBatches();
  if (options_.metrics != nullptr) options_.metrics->SetConnected(true);
  heartbeat_interval_ = welcome.heartbeat_interval_ms() > 0
                            ? absl::Milliseconds(welcome.heartbeat_interval_ms())
                            : options_.heartbeat_interval;
  next_heartbeat_ = absl::Now() + heartbeat_interval_;
  const std::vector<std::string> revoked(welcome.revoked_lease_ids().begin(),
                                         welcome.revoked_lease_ids().end());
  for (const std::string& lease_id : book_.Revoke(revoked)) {
    if (auto task = tasks_.find(lease_id); task != tasks_.end()) {
      task->second->cancel.Cancel(kRevokedReason);
      continue;
    }
    // Queued, never started: nothing to stop, its place frees now.
    if (std::optional<v1::Assignment> queued = TakeQueuedLocked(lease_id, nullptr)) {
      EndQueuedLocked(*queued, TaskReturnedRequest(*queued, kRevokedReason));
    }
  }
  for (const std::string& lease_id : revoked) {
    ForgetObservationsOf(lease_id, unconfirmed_misses_);
    ForgetObservationsOf(lease_id, kept_observations_);
  }
  // Observations first: a result must not reach the scheduler before the
  // tool calls that led to it.
  const size_t kept = unconfirmed_misses_.size() + kept_observations_.size();
  for (const v1::ConnectRequest& observation : unconfirmed_misses_) SendLocked(observation);
  for (v1::ConnectRequest& observation : kept_observations_) SendObservationLocked(observation);
  kept_observations_.clear();
  // Model calls made while no stream was up are billed before their
  // results; calls waiting for a grant ask on this stream from now on.
  const std::vector<v1::ConnectRequest> reports =
      llm_grants_->OnWelcome(welcome.governs_llm_calls());
  for (const v1::ConnectRequest& report : reports) SendLocked(report);
  // Calls this worker runs for the cache: a restarted scheduler learns they
  // are in flight before other workers ask for the same ones.
  for (v1::ConnectRequest& lookup : tool_caller_->ReannounceExecutingCalls()) {
    SendLocked(std::move(lookup));
  }
  // A task that started while no stream was up (a queued one) could not say
  // so then: it says so now.
  for (auto& [lease_id, task] : tasks_) {
    if (task->announced || task->cancel.cancelled()) continue;
    SendLocked(TaskStartedRequest(task->assignment));
    task->announced = true;
  }
  const std::vector<v1::ConnectRequest> unacked = book_.UnackedReports();
  // Re-sent results would time the reconnect, not the scheduler's round trip.
  prefetch_sizer_.ForgetInFlight();
  for (const v1::ConnectRequest& report : unacked) SendLocked(report);

  log::Info("connected to scheduler")
      .Fields(LogFields())
      .With("scheduler_id", welcome.scheduler_id())
      .With("held_tasks", book_.running())
      .With("revoked", revoked.size())
      .With("resent_results", unacked.size())
      .With("resent_observations", kept)
      .With("resent_llm_reports", reports.size())
      .With("governs_llm_calls", welcome.governs_llm_calls());
  ticker_cv_.Signal();
}

void Session::OnAssignmentLocked(v1::Assignment assignment, std::vector<Task*>& started) {
  if (draining_) {
    SendLocked(TaskReturnedRequest(assignment, kDrainingReason));
    return;
  }
  if (book_.IsRunning(assignment.lease_id())) return;  // a duplicate delivery
  if (!book_.Start(assignment.task_id(), assignment.lease_id())) {
    SendLocked(TaskReturnedRequest(assignment, "worker has no free slot (it offered none)"));
    return;
  }
  if (!queued_.empty() || tasks_.size() >= static_cast<size_t>(options_.slots)) {
    queued_.push_back(std::move(assignment));  // starts when a slot frees, in arrival order
    UpdateSlotMetricsLocked();
    return;
  }
  StartLocked(std::move(assignment), started);
}

void Session::StartLocked(v1::Assignment assignment, std::vector<Task*>& started) {
  absl::StatusOr<const Agent*> agent = agents_.Find(assignment.agent());
  if (!agent.ok()) {
    FailBeforeStartLocked(assignment, agent.status());
    return;
  }
  // Checked before anything runs, for every kind of agent: a cwd that leaves
  // the workspace root fails the task (the scheduler should have refused the
  // flow already).
  const bool opens_directory = (*agent)->needs_directory();
  absl::StatusOr<std::filesystem::path> directory = opens_directory
                                                        ? options_.workspaces.Open(assignment)
                                                        : options_.workspaces.Check(assignment);
  if (!directory.ok()) {
    if (opens_directory) options_.workspaces.Close(assignment);
    FailBeforeStartLocked(assignment, directory.status());
    return;
  }
  UpdateSlotMetricsLocked();
  auto task = std::make_unique<Task>(std::move(assignment), *agent, options_.output_interval);
  const v1::Assignment& started_assignment = task->assignment;
  task->directory = *std::move(directory);
  task->opened_directory = opens_directory;
  task->announced = state_ == State::kHandshaking || state_ == State::kReady;
  SendLocked(TaskStartedRequest(started_assignment));
  log::Debug("task started")
      .With("worker_id", options_.worker_id)
      .With("run_id", started_assignment.run_id())
      .With("task_id", started_assignment.task_id())
      .With("agent", started_assignment.agent())
      .With("attempt", started_assignment.attempt())
      .With("lease_id", started_assignment.lease_id());
  started.push_back(task.get());
  const std::string& lease_id = started_assignment.lease_id();
  tasks_.emplace(lease_id, std::move(task));
}

void Session::StartQueuedLocked(std::vector<Task*>& started) {
  // Draining too: queued assignments are this worker's, like running ones,
  // and run within the grace period (what is still queued when it expires
  // is handed back).
  while (!grace_expired_ && !queued_.empty() &&
         tasks_.size() < static_cast<size_t>(options_.slots)) {
    v1::Assignment assignment = std::move(queued_.front());
    queued_.pop_front();
    StartLocked(std::move(assignment), started);
  }
}

void Session::Launch(const std::vector<Task*>& started) {
  for (Task* task : started) task_threads_.Run([this, task] { RunTasks(task); });
}

std::optional<v1::Assignment> Session::TakeQueuedLocked(absl::string_view lease_id,
                                                        const std::string* task_id) {
  auto queued = std::find_if(queued_.begin(), queued_.end(), [&](const v1::Assignment& a) {
    return a.lease_id() == lease_id && (task_id == nullptr || a.task_id() == *task_id);
  });
  if (queued == queued_.end()) return std::nullopt;
  v1::Assignment assignment = std::move(*queued);
  queued_.erase(queued);
  return assignment;
}

void Session::EndQueuedLocked(const v1::Assignment& assignment, v1::ConnectRequest report) {
  ReportLocked(assignment.lease_id(), Report(std::move(report)));
  FreeSlotLocked();
}

void Session::FailBeforeStartLocked(const v1::Assignment& assignment, const absl::Status& why) {
  AgentOutcome outcome;
  outcome.error = std::string(why.message());
  outcome.execution.set_prompt(assignment.prompt());
  if (options_.metrics != nullptr) {
    options_.metrics->TaskFinished(assignment.agent(), TaskOutcome::kFailed, absl::ZeroDuration());
  }
  ReportLocked(assignment.lease_id(), Report(TaskResultRequest(assignment, std::move(outcome))));
  FreeSlotLocked();
}

void Session::OnCancel(const v1::Cancel& cancel) {
  Locked lock(this);
  const std::string reason =
      cancel.reason().empty() ? "cancelled by the scheduler" : cancel.reason();
  if (std::optional<v1::Assignment> queued =
          TakeQueuedLocked(cancel.lease_id(), &cancel.task_id())) {
    const v1::Assignment& assignment = *queued;
    CancelToken token;
    token.Cancel(reason);
    if (options_.metrics != nullptr) {
      options_.metrics->TaskFinished(assignment.agent(), TaskOutcome::kCancelled,
                                     absl::ZeroDuration());
    }
    EndQueuedLocked(assignment, TaskResultRequest(assignment, CancelledOutcome(assignment, token)));
    return;
  }
  auto it = tasks_.find(cancel.lease_id());
  if (it == tasks_.end() || it->second->assignment.task_id() != cancel.task_id()) return;
  it->second->cancel.Cancel(reason);
}

void Session::OnResultAckLocked(const v1::ResultAck& ack) {
  book_.Ack(ack.lease_id());
  prefetch_sizer_.ResultAcked(ack.lease_id(), absl::Now());
  // The result came after its observations on the same stream: they are in.
  ForgetObservationsOf(ack.lease_id(), unconfirmed_misses_);
  if (!ack.accepted()) {
    log::Warn("scheduler rejected a task result")
        .Fields(LogFields())
        .With("task_id", ack.task_id())
        .With("lease_id", ack.lease_id())
        .With("reason", ack.reason());
  }
  // Only a drain waits for acks (the stream closes once all are in); the
  // ticker has nothing else to do with one, and waking it per task cost a
  // context switch and a turn on mu_.
  if (draining_) ticker_cv_.Signal();
}

void Session::Drain(absl::Duration grace, std::string reason) {
  Locked lock(this);
  const absl::Time deadline = absl::Now() + std::max(grace, absl::ZeroDuration());
  if (draining_) {
    drain_deadline_ = std::min(drain_deadline_, deadline);
  } else {
    draining_ = true;
    drain_deadline_ = deadline;
    SendLocked(DrainingRequest(absl::ToInt64Milliseconds(grace)));

    log::Info("draining")
        .Fields(LogFields())
        .With("grace_ms", absl::ToInt64Milliseconds(grace))
        .With("reason", reason)
        .With("running", book_.running());
  }
  ticker_cv_.Signal();
}

void Session::RunTasks(Task* task) {
  while (task != nullptr) {
    AgentOutcome outcome;
    AttemptTrace attempt(options_.tracer != nullptr ? *options_.tracer : no_tracer_,
                         task->assignment, options_.trace_capture_content);
    {
      TaskContext context(this, task, task->agent, attempt.trace());
      outcome = task->agent->Run(task->assignment, context);
    }  // the context ends the task's tool calls before its result is reported
    attempt.End(outcome, task->cancel.cancelled());
    if (task->opened_directory) options_.workspaces.Close(task->assignment);
    task = OnTaskFinished(task, std::move(outcome));
  }
}

bool Session::SendToolLookup(v1::ConnectRequest lookup) {
  Locked lock(this);
  if (state_ != State::kHandshaking && state_ != State::kReady) return false;
  SendLocked(std::move(lookup));
  return true;
}

bool Session::SendToWelcomedStream(v1::ConnectRequest message) {
  Locked lock(this);
  if (state_ != State::kReady) return false;
  SendLocked(std::move(message));
  return true;
}

void Session::SendToolObservation(v1::ConnectRequest observation) {
  Locked lock(this);
  if (state_ == State::kHandshaking || state_ == State::kReady) {
    SendObservationLocked(observation);
    return;
  }
  if (kept_observations_.size() == kMaxKeptObservations) {
    kept_observations_.pop_front();
    log::Warn("dropped the oldest tool observation kept for the scheduler")
        .Fields(LogFields())
        .With("limit", kMaxKeptObservations);
  }
  kept_observations_.push_back(std::move(observation));
}

void Session::SendObservationLocked(const v1::ConnectRequest& observation) {
  if (!observation.observation().call_id().empty()) {
    if (unconfirmed_misses_.size() == kMaxKeptObservations) unconfirmed_misses_.pop_front();
    unconfirmed_misses_.push_back(observation);
  }
  SendLocked(observation);
}

void Session::OnOutput(Task& task, absl::string_view delta) {
  Locked lock(this);
  if (state_ != State::kReady) return;  // live output is not kept for a stream to come
  task.output.Append(delta);
  if (absl::optional<std::string> text = task.output.Take(absl::Now())) {
    SendLocked(OutputDeltaRequest(task.assignment, *std::move(text)));
  } else {
    ticker_cv_.Signal();  // the ticker sends it when the interval has passed
  }
}

Session::Task* Session::OnTaskFinished(Task* task, AgentOutcome outcome) {
  const v1::Assignment& assignment = task->assignment;
  const absl::Duration duration = absl::Now() - task->started;
  const bool succeeded = outcome.success;
  const int64_t input_tokens = outcome.usage.input_tokens();
  const int64_t output_tokens = outcome.usage.output_tokens();
  const double cost_usd = outcome.usage.cost_usd();
  const std::string error = outcome.error;
  // Built before taking mu_, which the reader and the other task threads
  // wait for: the report of the agent's outcome (unless the grace period
  // expired meanwhile: then it is a TaskReturned) and the copy the book
  // keeps until its ack.
  Report result(TaskResultRequest(assignment, std::move(outcome)));
  std::unique_ptr<Task> finished;
  std::vector<Task*> started;
  TaskOutcome ended;
  {
    Locked lock(this);
    if (absl::optional<std::string> text = task->output.TakeAll();
        text && state_ == State::kReady) {
      SendLocked(OutputDeltaRequest(assignment, *std::move(text)));
    }
    ended = OutcomeOf(succeeded, task->returned, task->cancel.cancelled());
    if (!task->returned) prefetch_sizer_.TaskRan(duration);
    if (options_.metrics != nullptr) {
      // Before the result goes out: whoever reads the result sees it counted.
      options_.metrics->TaskFinished(assignment.agent(), ended, duration);
      options_.metrics->LlmUsage(assignment.agent(), input_tokens, output_tokens, cost_usd);
    }
    ReportLocked(assignment.lease_id(),
                 task->returned ? Report(TaskReturnedRequest(assignment, kGraceExpiredReason))
                                : std::move(result));
    FreeSlotLocked();
    auto entry = tasks_.find(assignment.lease_id());
    finished = std::move(entry->second);
    tasks_.erase(entry);
    StartQueuedLocked(started);
    if (draining_) ticker_cv_.Signal();  // as for an ack: a drain waits for the last task
  }
  log::Debug("task finished")
      .With("worker_id", options_.worker_id)
      .With("run_id", assignment.run_id())
      .With("task_id", assignment.task_id())
      .With("agent", assignment.agent())
      .With("attempt", assignment.attempt())
      .With("outcome", TaskOutcomeName(ended))
      .With("duration_ms", absl::ToInt64Milliseconds(duration))
      .WithNonEmpty("error", error);
  // The slot this task freed goes to the first queued assignment, on this
  // thread: it is free now, and the hand-off to another would cost a wake-up.
  Task* next = nullptr;
  if (!started.empty()) {
    next = started.front();
    started.erase(started.begin());
  }
  Launch(started);
  return next;  // `finished` (this task) goes out of mu_
}

void Session::ReportLocked(const std::string& lease_id, Report report) {
  // Nothing to report for a revoked lease. Before READY the report waits for
  // the Welcome, which sends every unacked report whose lease survived.
  if (book_.Finish(lease_id, std::move(report.kept)) && state_ == State::kReady) {
    prefetch_sizer_.ResultSent(lease_id, absl::Now());
    SendLocked(std::move(report.sent));
  }
}

void Session::FreeSlotLocked() {
  UpdateSlotMetricsLocked();
  if (draining_) return;
  // --prefetch auto: the freed place comes back with the queue's growth, or
  // is withheld while the queue shrinks (one place per task that ends, so
  // credits the scheduler already holds stay valid).
  const int places = book_.slots();
  const int wanted = options_.slots + prefetch_sizer_.Update();
  if (wanted == places) {
    SendLocked(CreditsRequest(1));
    return;
  }
  const int now_places = wanted > places ? wanted : places - 1;
  book_.set_slots(now_places);
  SendLocked(CreditsRequest(1 + now_places - places, now_places - options_.slots));
}

void Session::SendLocked(v1::ConnectRequest message) {
  if (state_ == State::kHandshaking || state_ == State::kReady) {
    unsent_.push_back(std::move(message));
  }
}

void Session::FlushLocked() {
  if (unsent_.empty()) return;
  // A section that queued messages kept the stream it queued them for.
  if (connection_ != nullptr && connection_->outbox != nullptr) {
    connection_->outbox->Push(std::move(unsent_));
  }
  unsent_.clear();
}

void Session::TickerLoop() {
  Locked lock(this);
  while (!stop_ticker_) {
    const absl::Time wake = TickLocked(absl::Now());
    FlushLocked();  // the wait releases mu_
    ticker_cv_.WaitWithDeadline(&mu_, wake);
  }
}

absl::Time Session::TickLocked(absl::Time now) {
  absl::Time wake = now + absl::Seconds(1);
  if (state_ == State::kHandshaking || state_ == State::kReady) {
    if (now >= next_heartbeat_) {
      SendLocked(HeartbeatRequest(book_.HeldLeases()));
      next_heartbeat_ = now + heartbeat_interval_;
    }
    wake = std::min(wake, next_heartbeat_);
  }
  for (auto& [lease_id, task] : tasks_) {
    if (state_ != State::kReady) {
      task->output.Clear();
      continue;
    }
    if (absl::optional<std::string> text = task->output.Take(now)) {
      SendLocked(OutputDeltaRequest(task->assignment, *std::move(text)));
    }
    if (task->output.has_pending()) wake = std::min(wake, task->output.next_due());
  }
  if (draining_ && !grace_expired_) {
    if (now >= drain_deadline_) {
      grace_expired_ = true;
      for (auto& [lease_id, task] : tasks_) {
        task->returned = true;
        task->cancel.Cancel(kGraceExpiredReason);
      }
      while (!queued_.empty()) {
        const v1::Assignment assignment = std::move(queued_.front());
        queued_.pop_front();
        EndQueuedLocked(assignment, TaskReturnedRequest(assignment, kGraceExpiredReason));
      }
    } else {
      wake = std::min(wake, drain_deadline_);
    }
  }
  if (draining_ && !closed_ && book_.running() == 0) {
    // Unacked results get the rest of the grace period plus drain_ack_wait.
    const absl::Time give_up = drain_deadline_ + options_.drain_ack_wait;
    if (book_.unacked() == 0 || now >= give_up) {
      CloseLocked(now);
    } else {
      wake = std::min(wake, give_up);
    }
  }
  if (closed_ && connection_ != nullptr && !connection_->cancelled) {
    if (now >= close_deadline_) {
      connection_->context.TryCancel();
      connection_->cancelled = true;
    } else {
      wake = std::min(wake, close_deadline_);
    }
  }
  return wake;
}

void Session::CloseLocked(absl::Time now) {
  closed_ = true;
  close_deadline_ = now + kCloseWait;
  if (connection_ == nullptr) return;  // Run wakes from its backoff wait
  if (connection_->outbox != nullptr) {
    FlushLocked();                 // what this section sent goes before the close
    connection_->outbox->Close();  // writes what is queued, then WritesDone
  } else {
    connection_->context.TryCancel();  // still connecting
    connection_->cancelled = true;
  }
}

}  // namespace taskboard::worker
