#ifndef TASKBOARD_TESTS_CLI_FAKE_SCHEDULER_H_
#define TASKBOARD_TESTS_CLI_FAKE_SCHEDULER_H_

// An in-process Scheduler service on a loopback port with scripted answers,
// so the CLI's client commands are tested end to end over real gRPC without
// the engine. A test sets the run's initial snapshot and a script of events,
// each with the snapshot GetRun returns once the event was streamed; it reads
// back the requests the CLI sent.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::cli::testing {

// A loopback port that nothing listens on: bound, read back and closed.
inline int ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t length = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    ADD_FAILURE() << "cannot bind a loopback port";
  }
  close(fd);
  return ntohs(addr.sin_port);
}

// INVALID_ARGUMENT carrying FlowErrors the way the scheduler sends them.
inline grpc::Status FlowErrorsStatus(const std::string& message, const v1::FlowErrors& errors) {
  google::rpc::Status details;
  details.set_code(grpc::StatusCode::INVALID_ARGUMENT);
  details.set_message(message);
  details.add_details()->PackFrom(errors);
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message, details.SerializeAsString());
}

template <typename Message>
Message ParseText(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message)) << text;
  return message;
}

class FakeScheduler final : public v1::Scheduler::Service {
 public:
  FakeScheduler() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FakeScheduler() override {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

  // --- Script -------------------------------------------------------------
  // The run every call is about, as GetRun returns it before any event.
  void SetRun(v1::Run run) {
    std::lock_guard lock(mu_);
    run_ = std::move(run);
  }
  // Another run GetRun answers for (a child run of the scripted one).
  void AddOtherRun(v1::Run run) {
    std::lock_guard lock(mu_);
    others_.push_back(std::move(run));
  }
  // Run ids GetRun was asked for, in order.
  std::vector<std::string> get_run_ids() const {
    std::lock_guard lock(mu_);
    return get_run_ids_;
  }
  // Whether each GetRun asked without_tasks, in order.
  std::vector<bool> get_run_without_tasks() const {
    std::lock_guard lock(mu_);
    return get_run_without_tasks_;
  }
  // GetRun without_tasks leaves out the tasks (and a board's phases), as
  // the scheduler does; by default the fake answers whole, as a scheduler
  // older than the field does.
  void HonorWithoutTasks() {
    std::lock_guard lock(mu_);
    honor_without_tasks_ = true;
  }
  // The next event (seq 1, 2, ...) and the run as it stands once it happened.
  void AddEvent(const std::string& event_text, v1::Run run_after) {
    std::lock_guard lock(mu_);
    v1::RunEvent event = ParseText<v1::RunEvent>(event_text);
    event.set_seq(static_cast<int64_t>(script_.size()) + 1);
    event.set_run_id(run_after.run_id());
    run_after.set_last_seq(event.seq());
    script_.push_back({std::move(event), std::move(run_after)});
  }
  // The first WatchRun stream fails with UNAVAILABLE right after this seq.
  void BreakFirstStreamAfter(int64_t seq,
                             grpc::Status status = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                                                "scheduler restarting")) {
    std::lock_guard lock(mu_);
    break_after_ = seq;
    break_status_ = std::move(status);
  }
  // The first stream's break (BreakFirstStreamAfter) names this replica as
  // the leader, in the `taskboard-leader` trailer, as a scheduler that lost
  // the lead does.
  void NameLeaderOnBreak(std::string leader) {
    std::lock_guard lock(mu_);
    break_leader_ = std::move(leader);
  }
  // WatchRun streams stay open after the script, until the client cancels.
  void HoldWatchOpen() {
    std::lock_guard lock(mu_);
    hold_watch_open_ = true;
  }
  // The next unary call returns `status` instead of answering.
  void FailNextCall(grpc::Status status) {
    std::lock_guard lock(mu_);
    next_error_ = std::move(status);
  }
  void SetResumeReused(std::vector<std::string> phases) {
    std::lock_guard lock(mu_);
    reused_ = std::move(phases);
  }
  void SetRuns(v1::ListRunsResponse runs) {
    std::lock_guard lock(mu_);
    runs_ = std::move(runs);
  }
  // What GetTask returns for the task of the run with this response's task id.
  void AddTask(v1::GetTaskResponse task) {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  void SetFlows(std::vector<v1::SavedFlow> flows) {
    std::lock_guard lock(mu_);
    flows_ = std::move(flows);
  }
  // What GetUsage answers, whatever was asked.
  void SetUsage(v1::GetUsageResponse usage) {
    std::lock_guard lock(mu_);
    usage_ = std::move(usage);
  }

  // What GetCacheStats answers, whatever was asked.
  void SetCacheStats(v1::GetCacheStatsResponse stats) {
    std::lock_guard lock(mu_);
    cache_stats_ = std::move(stats);
  }

  // --- What the CLI sent --------------------------------------------------
  v1::SubmitRunRequest submitted() const {
    std::lock_guard lock(mu_);
    return submitted_;
  }
  std::vector<int64_t> watch_after_seqs() const {
    std::lock_guard lock(mu_);
    return watch_after_seqs_;
  }
  v1::ListRunsRequest list_request() const {
    std::lock_guard lock(mu_);
    return list_request_;
  }
  void SetWorkers(v1::ListWorkersResponse workers) {
    std::lock_guard lock(mu_);
    workers_ = std::move(workers);
  }
  v1::DrainWorkerRequest drain_request() const {
    std::lock_guard lock(mu_);
    return drain_request_;
  }
  void SetApprovals(v1::ListApprovalsResponse approvals) {
    std::lock_guard lock(mu_);
    approvals_ = std::move(approvals);
  }
  v1::DecideApprovalRequest decide_request() const {
    std::lock_guard lock(mu_);
    return decide_request_;
  }
  v1::ResumeRunRequest resume_request() const {
    std::lock_guard lock(mu_);
    return resume_request_;
  }
  v1::GetUsageRequest usage_request() const {
    std::lock_guard lock(mu_);
    return usage_request_;
  }
  v1::GetCacheStatsRequest cache_stats_request() const {
    std::lock_guard lock(mu_);
    return cache_stats_request_;
  }
  v1::CancelRunRequest cancel_request() const {
    std::lock_guard lock(mu_);
    return cancel_request_;
  }
  v1::SaveFlowRequest save_request() const {
    std::lock_guard lock(mu_);
    return save_request_;
  }
  // The task ids of every GetTask call, in order.
  std::vector<std::string> task_requests() const {
    std::lock_guard lock(mu_);
    return task_requests_;
  }
  int calls() const {
    std::lock_guard lock(mu_);
    return calls_;
  }

  // --- Service --------------------------------------------------------------
  grpc::Status SubmitRun(grpc::ServerContext*, const v1::SubmitRunRequest* request,
                         v1::SubmitRunResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    submitted_ = *request;
    response->set_run_id(run_.run_id());
    return grpc::Status::OK;
  }

  grpc::Status GetRun(grpc::ServerContext*, const v1::GetRunRequest* request,
                      v1::GetRunResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    get_run_ids_.push_back(request->run_id());
    get_run_without_tasks_.push_back(request->without_tasks());
    for (const v1::Run& other : others_) {
      if (other.run_id() == request->run_id()) {
        *response->mutable_run() = other;
        return grpc::Status::OK;
      }
    }
    if (request->run_id() != run_.run_id()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("run '", request->run_id(), "' not found"));
    }
    *response->mutable_run() = run_;
    if (request->without_tasks() && honor_without_tasks_) {
      response->mutable_run()->clear_tasks();
      if (run_.kind() == v1::FLOW_KIND_BOARD) response->mutable_run()->clear_phases();
    }
    return grpc::Status::OK;
  }

  grpc::Status GetTask(grpc::ServerContext*, const v1::GetTaskRequest* request,
                       v1::GetTaskResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    task_requests_.push_back(request->task_id());
    for (const v1::GetTaskResponse& task : tasks_) {
      if (request->run_id() == run_.run_id() && task.task().task_id() == request->task_id()) {
        *response = task;
        return grpc::Status::OK;
      }
    }
    return grpc::Status(
        grpc::StatusCode::NOT_FOUND,
        absl::StrCat("run ", request->run_id(), " has no task '", request->task_id(), "'"));
  }

  grpc::Status WatchRun(grpc::ServerContext* context, const v1::WatchRunRequest* request,
                        grpc::ServerWriter<v1::WatchRunResponse>* writer) override {
    std::unique_lock lock(mu_);
    ++calls_;
    watch_after_seqs_.push_back(request->after_seq());
    if (request->run_id() != run_.run_id()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such run");
    }
    for (const Step& step : script_) {
      if (step.event.seq() <= request->after_seq()) continue;
      if (break_after_ > 0 && step.event.seq() > break_after_) {
        break_after_ = 0;
        if (!break_leader_.empty()) context->AddTrailingMetadata("taskboard-leader", break_leader_);
        return break_status_;
      }
      run_ = step.run_after;
      v1::WatchRunResponse response;
      *response.mutable_event() = step.event;
      lock.unlock();
      if (!writer->Write(response)) return grpc::Status::CANCELLED;
      lock.lock();
    }
    if (hold_watch_open_) {
      lock.unlock();
      while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return grpc::Status::CANCELLED;
    }
    return grpc::Status::OK;
  }

  grpc::Status ListRuns(grpc::ServerContext*, const v1::ListRunsRequest* request,
                        v1::ListRunsResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    list_request_ = *request;
    *response = runs_;
    return grpc::Status::OK;
  }

  grpc::Status CancelRun(grpc::ServerContext*, const v1::CancelRunRequest* request,
                         v1::CancelRunResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    cancel_request_ = *request;
    response->set_status(v1::RUN_STATUS_CANCELLED);
    return grpc::Status::OK;
  }

  grpc::Status ListWorkers(grpc::ServerContext*, const v1::ListWorkersRequest*,
                           v1::ListWorkersResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    *response = workers_;
    return grpc::Status::OK;
  }

  grpc::Status DrainWorker(grpc::ServerContext*, const v1::DrainWorkerRequest* request,
                           v1::DrainWorkerResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    drain_request_ = *request;
    for (const v1::WorkerInfo& worker : workers_.workers()) {
      if (worker.worker_id() != request->worker_id()) continue;
      *response->mutable_worker() = worker;
      response->mutable_worker()->set_draining(true);
      return grpc::Status::OK;
    }
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "no connected worker has id '" + request->worker_id() + "'");
  }

  grpc::Status ListApprovals(grpc::ServerContext*, const v1::ListApprovalsRequest*,
                             v1::ListApprovalsResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    *response = approvals_;
    return grpc::Status::OK;
  }

  // Answers with the decision made by "alice".
  grpc::Status DecideApproval(grpc::ServerContext*, const v1::DecideApprovalRequest* request,
                              v1::DecideApprovalResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    decide_request_ = *request;
    v1::ApprovalDecision& decision =
        *response->mutable_task()->mutable_approval()->mutable_decision();
    decision.set_decision(request->decision() == "choice" ? request->choice()
                                                          : request->decision());
    decision.set_decided_by("alice");
    return grpc::Status::OK;
  }

  grpc::Status ResumeRun(grpc::ServerContext*, const v1::ResumeRunRequest* request,
                         v1::ResumeRunResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    resume_request_ = *request;
    response->set_run_id(request->run_id());
    for (const std::string& phase : reused_) response->add_reused_phases(phase);
    return grpc::Status::OK;
  }

  grpc::Status GetUsage(grpc::ServerContext*, const v1::GetUsageRequest* request,
                        v1::GetUsageResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    usage_request_ = *request;
    *response = usage_;
    return grpc::Status::OK;
  }

  grpc::Status GetCacheStats(grpc::ServerContext*, const v1::GetCacheStatsRequest* request,
                             v1::GetCacheStatsResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    cache_stats_request_ = *request;
    *response = cache_stats_;
    return grpc::Status::OK;
  }

  grpc::Status SaveFlow(grpc::ServerContext*, const v1::SaveFlowRequest* request,
                        v1::SaveFlowResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    save_request_ = *request;
    response->mutable_flow()->set_name("saved-flow");
    response->mutable_flow()->set_version(3);
    return grpc::Status::OK;
  }

  grpc::Status GetFlow(grpc::ServerContext*, const v1::GetFlowRequest* request,
                       v1::GetFlowResponse* response) override {
    std::lock_guard lock(mu_);
    for (const v1::SavedFlow& flow : flows_) {
      if (flow.name() == request->name() &&
          (request->version() == 0 || request->version() == flow.version())) {
        *response->mutable_flow() = flow;
        return grpc::Status::OK;
      }
    }
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("flow '", request->name(), "' not found"));
  }

  grpc::Status ListFlows(grpc::ServerContext*, const v1::ListFlowsRequest* request,
                         v1::ListFlowsResponse* response) override {
    std::lock_guard lock(mu_);
    // One flow per page, to make the CLI follow page tokens.
    size_t index = request->page_token().empty() ? 0 : std::stoul(request->page_token());
    if (index < flows_.size()) *response->add_flows() = flows_[index];
    if (index + 1 < flows_.size()) response->set_next_page_token(std::to_string(index + 1));
    return grpc::Status::OK;
  }

  grpc::Status DeleteFlow(grpc::ServerContext*, const v1::DeleteFlowRequest* request,
                          v1::DeleteFlowResponse* response) override {
    std::lock_guard lock(mu_);
    if (grpc::Status error = TakeError(); !error.ok()) return error;
    response->set_deleted_versions(2);
    return grpc::Status::OK;
  }

 private:
  struct Step {
    v1::RunEvent event;
    v1::Run run_after;
  };

  grpc::Status TakeError() {
    ++calls_;
    grpc::Status error = next_error_;
    next_error_ = grpc::Status::OK;
    return error;
  }

  mutable std::mutex mu_;
  v1::Run run_;
  std::vector<Step> script_;
  int64_t break_after_ = 0;
  bool hold_watch_open_ = false;
  grpc::Status break_status_;
  std::string break_leader_;
  grpc::Status next_error_;
  std::vector<std::string> reused_;
  v1::ListRunsResponse runs_;
  std::vector<v1::Run> others_;
  std::vector<std::string> get_run_ids_;
  std::vector<bool> get_run_without_tasks_;
  bool honor_without_tasks_ = false;
  std::vector<v1::SavedFlow> flows_;
  std::vector<v1::GetTaskResponse> tasks_;
  std::vector<std::string> task_requests_;
  v1::SubmitRunRequest submitted_;
  std::vector<int64_t> watch_after_seqs_;
  v1::ListRunsRequest list_request_;
  v1::CancelRunRequest cancel_request_;
  v1::ResumeRunRequest resume_request_;
  v1::GetUsageResponse usage_;
  v1::GetUsageRequest usage_request_;
  v1::GetCacheStatsResponse cache_stats_;
  v1::GetCacheStatsRequest cache_stats_request_;
  v1::ListWorkersResponse workers_;
  v1::DrainWorkerRequest drain_request_;
  v1::ListApprovalsResponse approvals_;
  v1::DecideApprovalRequest decide_request_;
  v1::SaveFlowRequest save_request_;
  int calls_ = 0;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace taskboard::cli::testing

#endif  // TASKBOARD_TESTS_CLI_FAKE_SCHEDULER_H_
