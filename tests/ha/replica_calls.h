#ifndef TASKBOARD_TESTS_HA_REPLICA_CALLS_H_
#define TASKBOARD_TESTS_HA_REPLICA_CALLS_H_

// The Scheduler calls the HA tests make on one replica (no failover): a
// submit under an idempotency key that also labels the run `key=<key>`, so
// a test can count the runs each key made; every run, page by page; a run
// polled until it finished; a run's whole event log.

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "grpcpp/client_context.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::testing {

inline absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

// A flow of one phase `phase_id` (the task id too) whose command agent
// `agent` runs `prompt` (tests/integration/agents/script.sh's language).
inline std::string OnePhaseFlow(const std::string& phase_id, const std::string& agent,
                                const std::string& prompt) {
  return DumpJson({{"name", "ha-probe"},
                   {"phases", Json::array({{{"id", phase_id}, {"agent", agent}, {"task", prompt}}})}});
}

// The request every HA test submits: `flow` under idempotency key `key`,
// labelled key=`key`, in session kSession (so a session-scoped tool cache
// is shared by all of a test's runs).
inline constexpr char kSession[] = "ha-tests";
inline v1::SubmitRunRequest KeyedSubmit(const std::string& flow, const std::string& key) {
  v1::SubmitRunRequest request;
  request.set_session_id(kSession);
  request.mutable_source()->set_text(flow);
  request.set_idempotency_key(key);
  (*request.mutable_labels())["key"] = key;
  return request;
}

inline grpc::Status SubmitKeyed(v1::Scheduler::Stub& stub, const std::string& flow,
                                const std::string& key, absl::Duration timeout,
                                v1::SubmitRunResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  return stub.SubmitRun(&context, KeyedSubmit(flow, key), response);
}

// Every run the replica lists (summaries, without tasks).
inline absl::StatusOr<std::vector<v1::Run>> ListAllRuns(v1::Scheduler::Stub& stub) {
  std::vector<v1::Run> runs;
  std::string token;
  do {
    v1::ListRunsRequest request;
    request.set_page_size(500);
    request.set_page_token(token);
    v1::ListRunsResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Status status = stub.ListRuns(&context, request, &response);
    if (!status.ok()) return FromGrpc(status);
    runs.insert(runs.end(), response.runs().begin(), response.runs().end());
    token = response.next_page_token();
  } while (!token.empty());
  return runs;
}

inline bool Finished(const v1::Run& run) {
  return run.status() != v1::RUN_STATUS_PENDING && run.status() != v1::RUN_STATUS_RUNNING;
}

// Polls GetRun until the run finished; DEADLINE_EXCEEDED with the last
// answer after `timeout`.
inline absl::StatusOr<v1::Run> WaitForRunToFinish(v1::Scheduler::Stub& stub,
                                                  const std::string& run_id,
                                                  absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::string last = "no answer";
  while (absl::Now() < deadline) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::GetRunResponse response;
    grpc::Status status = stub.GetRun(&context, request, &response);
    if (status.ok()) {
      if (Finished(response.run())) return response.run();
      last = v1::RunStatus_Name(response.run().status());
    } else {
      last = status.error_message();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("run ", run_id, " did not finish in ", absl::FormatDuration(timeout), ": ",
                   last));
}

// Every event of a run, replayed through WatchRun from the start to its end.
inline absl::StatusOr<std::vector<v1::RunEvent>> AllEvents(v1::Scheduler::Stub& stub,
                                                          const std::string& run_id) {
  v1::WatchRunRequest request;
  request.set_run_id(run_id);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  auto reader = stub.WatchRun(&context, request);
  std::vector<v1::RunEvent> events;
  v1::WatchRunResponse response;
  while (reader->Read(&response)) {
    events.push_back(response.event());
    if (response.event().has_run_finished()) {
      context.TryCancel();
      break;
    }
  }
  grpc::Status status = reader->Finish();
  if (!status.ok() && status.error_code() != grpc::StatusCode::CANCELLED) {
    return FromGrpc(status);
  }
  return events;
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_HA_REPLICA_CALLS_H_
