// Operating a cluster: draining a worker on SIGTERM or through the
// scheduler, listing workers, saved flows, watching a run live from its
// first event.

#include <chrono>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::Cluster;
using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;

ClusterOptions OneSlotEach() {
  ClusterOptions options;
  options.slots = 1;
  return options;
}

class OperationsTest : public testing::ClusterTest {
 protected:
  OperationsTest() : ClusterTest(OneSlotEach()) {}
};

TEST_F(OperationsTest, WorkerSigterm_FinishesItsTaskThenExitsCleanly) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: drain
phases:
  - id: slow
    agent: echo
    task: "sleep 1 finished while draining"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> running = cluster_.WaitUntil(*run_id, [](const v1::Run& run) {
    return run.tasks_size() == 1 && run.tasks(0).state() == v1::TASK_STATE_RUNNING;
  });
  ASSERT_THAT(running.status(), IsOk());
  int holder = running->tasks(0).worker_id() == "worker-0" ? 0 : 1;
  cluster_.worker(holder)->Signal(SIGTERM);
  EXPECT_EQ(cluster_.worker(holder)->WaitFor(15'000), 0) << cluster_.Logs();

  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();
  EXPECT_EQ(run->output(), "finished while draining\n");
  EXPECT_EQ(run->tasks(0).attempt(), 1);
}

TEST_F(OperationsTest, SchedulerSigterm_EndsWatchesAndWorkerStreamsAsUnavailableSayingWhy) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: long
phases:
  - id: slow
    agent: echo
    task: "sleep 30 never seen"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_
                  .WaitUntil(*run_id,
                             [](const v1::Run& run) {
                               return run.tasks_size() == 1 &&
                                      run.tasks(0).state() == v1::TASK_STATE_RUNNING;
                             })
                  .status(),
              IsOk());
  // A watcher tailing the running run: it never ends on its own.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  v1::WatchRunRequest request;
  request.set_run_id(*run_id);
  std::unique_ptr<grpc::ClientReader<v1::WatchRunResponse>> watch =
      cluster_.client().WatchRun(&context, request);
  v1::WatchRunResponse event;
  ASSERT_TRUE(watch->Read(&event));  // replay has started: the stream is open

  cluster_.scheduler()->Signal(SIGTERM);
  while (watch->Read(&event)) {
  }
  grpc::Status ended = watch->Finish();
  // Ended by the scheduler with a reason to reconnect, not cut off at its
  // shutdown deadline.
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE) << ended.error_message();
  EXPECT_THAT(ended.error_message(), HasSubstr("the scheduler is shutting down"));
  EXPECT_EQ(cluster_.scheduler()->WaitFor(15'000), 0) << cluster_.Logs();
  EXPECT_THAT(cluster_.Logs(), HasSubstr("UNAVAILABLE: the scheduler is shutting down"))
      << "the workers were told why their stream ended";
}

absl::StatusOr<v1::ListWorkersResponse> ListWorkers(Cluster& cluster) {
  grpc::ClientContext context;
  v1::ListWorkersResponse response;
  grpc::Status status = cluster.client().ListWorkers(&context, {}, &response);
  if (!status.ok()) return absl::UnavailableError(status.error_message());
  return response;
}

// Polls ListWorkers until `count` workers are connected (streams come and go
// asynchronously) or 10 s pass; the last answer either way.
absl::StatusOr<v1::ListWorkersResponse> WaitForWorkers(Cluster& cluster, int count) {
  absl::StatusOr<v1::ListWorkersResponse> workers;
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  do {
    workers = ListWorkers(cluster);
    if (workers.ok() && workers->workers_size() == count) break;
    absl::SleepFor(absl::Milliseconds(20));
  } while (absl::Now() < deadline);
  return workers;
}

TEST_F(OperationsTest, DrainWorker_RunningTaskFinishesThenTheWorkerLeaves) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: drain-request
phases:
  - id: slow
    agent: echo
    task: "sleep 1 finished while drained"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> running = cluster_.WaitUntil(*run_id, [](const v1::Run& run) {
    return run.tasks_size() == 1 && run.tasks(0).state() == v1::TASK_STATE_RUNNING;
  });
  ASSERT_THAT(running.status(), IsOk());
  const std::string holder_id = running->tasks(0).worker_id();
  int holder = holder_id == "worker-0" ? 0 : 1;

  absl::StatusOr<v1::ListWorkersResponse> before = WaitForWorkers(cluster_, 2);
  ASSERT_THAT(before.status(), IsOk());
  ASSERT_EQ(before->workers_size(), 2);
  EXPECT_EQ(before->workers(0).worker_id(), "worker-0");
  EXPECT_EQ(before->workers(holder).running(), 1);
  EXPECT_THAT(before->workers(holder).agents(), ::testing::Contains("echo"));

  grpc::ClientContext context;
  v1::DrainWorkerRequest request;
  request.set_worker_id(holder_id);
  request.set_grace_ms(15'000);
  v1::DrainWorkerResponse response;
  ASSERT_TRUE(cluster_.client().DrainWorker(&context, request, &response).ok());
  EXPECT_TRUE(response.worker().draining());

  // The worker finishes the task it holds, then exits on its own.
  EXPECT_EQ(cluster_.worker(holder)->WaitFor(15'000), 0) << cluster_.Logs();
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();
  EXPECT_EQ(run->tasks(0).attempt(), 1);
  EXPECT_EQ(run->output(), "finished while drained\n");

  absl::StatusOr<v1::ListWorkersResponse> after = WaitForWorkers(cluster_, 1);
  ASSERT_THAT(after.status(), IsOk());
  ASSERT_EQ(after->workers_size(), 1) << cluster_.Logs();
  EXPECT_NE(after->workers(0).worker_id(), holder_id);
}

// Idle workers heartbeat every --heartbeat-interval-ms (500 ms here), so
// the last heartbeat ListWorkers shows moves on while connected_at stays.
TEST_F(OperationsTest, ListWorkers_LastHeartbeatSetAndAdvancing) {
  absl::StatusOr<v1::ListWorkersResponse> first = WaitForWorkers(cluster_, 2);
  ASSERT_THAT(first.status(), IsOk());
  ASSERT_EQ(first->workers_size(), 2);
  const v1::WorkerInfo& before = first->workers(0);
  ASSERT_TRUE(before.has_last_heartbeat());
  EXPECT_GE(before.last_heartbeat().seconds(), before.connected_at().seconds());
  const auto ms = [](const google::protobuf::Timestamp& t) {
    return t.seconds() * 1000 + t.nanos() / 1'000'000;
  };
  absl::StatusOr<v1::ListWorkersResponse> later;
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  do {
    absl::SleepFor(absl::Milliseconds(100));
    later = ListWorkers(cluster_);
  } while (absl::Now() < deadline && later.ok() && later->workers_size() > 0 &&
           ms(later->workers(0).last_heartbeat()) <= ms(before.last_heartbeat()));
  ASSERT_THAT(later.status(), IsOk());
  ASSERT_GT(later->workers_size(), 0);
  EXPECT_EQ(later->workers(0).worker_id(), before.worker_id());
  EXPECT_GT(ms(later->workers(0).last_heartbeat()), ms(before.last_heartbeat()))
      << "no heartbeat counted in 10 s" << cluster_.Logs();
  EXPECT_EQ(ms(later->workers(0).connected_at()), ms(before.connected_at()));
}

TEST_F(OperationsTest, DrainWorker_UnknownId_NotFoundListsConnectedWorkers) {
  // Both workers connect on their own; wait until the scheduler sees them.
  absl::StatusOr<v1::ListWorkersResponse> workers = WaitForWorkers(cluster_, 2);
  ASSERT_THAT(workers.status(), IsOk());
  ASSERT_EQ(workers->workers_size(), 2);

  grpc::ClientContext context;
  v1::DrainWorkerRequest request;
  request.set_worker_id("worker-9");
  v1::DrainWorkerResponse response;
  grpc::Status status = cluster_.client().DrainWorker(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("no connected worker has id 'worker-9'"));
  EXPECT_THAT(status.error_message(), HasSubstr("worker-0, worker-1"));
}

TEST_F(OperationsTest, SavedFlow_VersionsAndRunsByName) {
  const std::string text = R"(
name: saved-greeting
args:
  who: {default: world}
phases:
  - id: greet
    agent: echo
    task: "echo hello {args.who}"
)";
  for (int i = 0; i < 2; ++i) {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(text);
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_.client().SaveFlow(&context, request, &response).ok());
    EXPECT_EQ(response.flow().version(), i + 1);
  }
  v1::ListFlowsResponse list;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_.client().ListFlows(&context, {}, &list).ok());
  }
  ASSERT_EQ(list.flows_size(), 1);
  EXPECT_EQ(list.flows(0).version(), 2);

  v1::SubmitRunRequest submit;
  submit.mutable_saved()->set_name("saved-greeting");
  (*submit.mutable_args()->mutable_fields())["who"].set_string_value("Taskboard");
  v1::SubmitRunResponse submitted;
  {
    grpc::ClientContext context;
    grpc::Status status = cluster_.client().SubmitRun(&context, submit, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(submitted.run_id());
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->output(), "hello Taskboard\n");

  v1::DeleteFlowRequest remove;
  remove.set_name("saved-greeting");
  v1::DeleteFlowResponse removed;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(cluster_.client().DeleteFlow(&context, remove, &removed).ok());
  }
  EXPECT_EQ(removed.deleted_versions(), 2);
  grpc::ClientContext context;
  v1::SubmitRunResponse missing;
  grpc::Status status = cluster_.client().SubmitRun(&context, submit, &missing);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("taskboard flows list"));
}

TEST_F(OperationsTest, WatchRun_StreamsLiveEventsInOrderUntilTheRunFinishes) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(R"(
name: watched
phases:
  - id: a
    agent: echo
    task: "sleep 0.3 one"
  - id: b
    agent: echo
    dependsOn: [a]
    task: "echo two"
)");
  ASSERT_THAT(run_id.status(), IsOk());
  // Started right after submit: most events arrive live, not from the replay.
  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster_.WatchToEnd(*run_id);
  ASSERT_THAT(events.status(), IsOk());
  ASSERT_GE(events->size(), 4u);
  EXPECT_TRUE(events->front().has_run_started());
  EXPECT_TRUE(events->back().has_run_finished());
  EXPECT_EQ(events->back().run_finished().status(), v1::RUN_STATUS_COMPLETED);
  for (size_t i = 0; i < events->size(); ++i) {
    EXPECT_EQ((*events)[i].seq(), static_cast<int64_t>(i + 1));
  }
}

}  // namespace
}  // namespace taskboard
