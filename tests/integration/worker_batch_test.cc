// Batches on the worker stream against a real scheduler (no worker
// processes: the test speaks the WorkerGateway protocol itself). A worker
// whose Hello accepts batches gets assignments coalesced into
// ConnectResponse.batch and may answer with ConnectRequest.batch; one that
// does not never sees a batch. A batch holding a batch, or more than 4,096
// messages, ends that stream with INVALID_ARGUMENT and nothing else.

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "taskboard/v1/worker.grpc.pb.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;

constexpr char kAgent[] = "batcher";
constexpr int kTasks = 100;

ClusterOptions SchedulerOnly() {
  ClusterOptions options;
  options.workers = 0;
  return options;
}

// A board of `count` independent tasks for kAgent, all ready at once.
std::string Board(int count) {
  Json tasks = Json::array();
  for (int i = 0; i < count; ++i) {
    tasks.push_back({{"id", absl::StrCat("t", i)}, {"agent", kAgent}, {"task", absl::StrCat(i)}});
  }
  return DumpJson({{"name", "batched"}, {"kind", "board"}, {"board", {{"tasks", tasks}}}});
}

// One WorkerGateway stream played by the test: Hello on construction, then
// reads and writes as the test says.
class RawWorker {
 public:
  RawWorker(const std::string& address, const std::string& worker_id, bool accepts_batches,
            int slots = kTasks)
      : stub_(v1::WorkerGateway::NewStub(testing::TestChannel(address))) {
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    stream_ = stub_->Connect(&context_);
    v1::ConnectRequest hello;
    hello.mutable_hello()->set_worker_id(worker_id);
    hello.mutable_hello()->set_incarnation(absl::StrCat(worker_id, "-1"));
    hello.mutable_hello()->add_agents()->set_name(kAgent);
    hello.mutable_hello()->set_slots(slots);
    hello.mutable_hello()->set_accepts_batches(accepts_batches);
    stream_->Write(hello);
  }
  ~RawWorker() {
    if (finished_) return;
    context_.TryCancel();
    ReadToEnd();
  }

  // The Welcome, which must come first.
  v1::Welcome ReadWelcome() {
    v1::ConnectResponse message;
    EXPECT_TRUE(stream_->Read(&message)) << "the stream ended before the Welcome";
    EXPECT_TRUE(message.has_welcome()) << message.DebugString();
    return message.welcome();
  }

  bool Read(v1::ConnectResponse* message) { return stream_->Read(message); }
  bool Write(const v1::ConnectRequest& message) { return stream_->Write(message); }

  // Reads to the end of the stream: the status it ended with.
  grpc::Status ReadToEnd() {
    v1::ConnectResponse ignored;
    while (stream_->Read(&ignored)) {
    }
    finished_ = true;
    return stream_->Finish();
  }

 private:
  std::unique_ptr<v1::WorkerGateway::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>> stream_;
  bool finished_ = false;  // Finish was called (once only)
};

// What a worker received while serving its tasks.
struct Received {
  int assignments = 0;
  int batches = 0;
  int largest_batch = 0;
  bool nested_batch = false;
};

// Runs every assignment `worker` receives until `tasks` are done: each
// result's output is its prompt. With `reply_in_batches` the results and
// the freed slots' credits for one read go back as one batch, otherwise as
// one message each.
Received Serve(RawWorker& worker, int tasks, bool reply_in_batches) {
  Received received;
  v1::ConnectResponse message;
  while (received.assignments < tasks && worker.Read(&message)) {
    std::vector<v1::Assignment> assignments;
    if (message.has_batch()) {
      received.batches++;
      received.largest_batch = std::max(received.largest_batch, message.batch().messages_size());
      for (const v1::ConnectResponse& inner : message.batch().messages()) {
        if (inner.has_batch()) received.nested_batch = true;
        if (inner.has_assignment()) assignments.push_back(inner.assignment());
      }
    } else if (message.has_assignment()) {
      assignments.push_back(message.assignment());
    }
    if (assignments.empty()) continue;
    received.assignments += static_cast<int>(assignments.size());

    std::vector<v1::ConnectRequest> replies;
    for (const v1::Assignment& assignment : assignments) {
      v1::TaskResult& result = *replies.emplace_back().mutable_task_result();
      result.set_task_id(assignment.task_id());
      result.set_lease_id(assignment.lease_id());
      result.set_success(true);
      result.set_output(assignment.prompt());
    }
    replies.emplace_back().mutable_credits()->set_slots(static_cast<int>(assignments.size()));
    if (reply_in_batches) {
      v1::ConnectRequest batch;
      for (v1::ConnectRequest& reply : replies) *batch.mutable_batch()->add_messages() = reply;
      EXPECT_TRUE(worker.Write(batch));
    } else {
      for (const v1::ConnectRequest& reply : replies) EXPECT_TRUE(worker.Write(reply));
    }
  }
  return received;
}

class WorkerBatchTest : public testing::ClusterTest {
 protected:
  WorkerBatchTest() : ClusterTest(SchedulerOnly()) {}

  // Submits a board for kAgent; the run id ("" and a failure if refused).
  std::string SubmitBoard(int tasks) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(Board(tasks));
    EXPECT_THAT(run_id.status(), IsOk()) << cluster_.Logs();
    return run_id.value_or("");
  }

  void ExpectCompleted(const std::string& run_id) {
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id, 30'000);
    ASSERT_THAT(run.status(), IsOk());
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();
  }

  // After a refused stream: a new worker connects and completes a run.
  void ExpectStillServing(const std::string& worker_id) {
    ASSERT_TRUE(cluster_.scheduler()->Running()) << cluster_.Logs();
    RawWorker worker(cluster_.address(), worker_id, /*accepts_batches=*/true);
    worker.ReadWelcome();
    const std::string run_id = SubmitBoard(3);
    EXPECT_EQ(Serve(worker, 3, /*reply_in_batches=*/true).assignments, 3);
    ExpectCompleted(run_id);
  }
};

TEST_F(WorkerBatchTest, AcceptsBatches_AssignmentsComeInBatchesAndBatchedRepliesCompleteTheRun) {
  RawWorker worker(cluster_.address(), "w-batches", /*accepts_batches=*/true);
  EXPECT_TRUE(worker.ReadWelcome().accepts_batches());
  const std::string run_id = SubmitBoard(kTasks);

  Received received = Serve(worker, kTasks, /*reply_in_batches=*/true);
  EXPECT_EQ(received.assignments, kTasks);
  // All 100 are dispatched at once and queue behind the first write: they
  // cannot all go one by one.
  EXPECT_GE(received.batches, 1);
  EXPECT_LE(received.largest_batch, 4096);
  EXPECT_FALSE(received.nested_batch);
  ExpectCompleted(run_id);

  absl::StatusOr<v1::Run> run = cluster_.GetRun(run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->tasks_size(), kTasks);
  for (const v1::Task& task : run->tasks()) {
    EXPECT_EQ(task.state(), v1::TASK_STATE_COMPLETED) << task.task_id();
  }
}

TEST_F(WorkerBatchTest, WithoutAcceptsBatches_NeverReceivesABatch) {
  RawWorker worker(cluster_.address(), "w-plain", /*accepts_batches=*/false);
  worker.ReadWelcome();
  const std::string run_id = SubmitBoard(kTasks);

  Received received = Serve(worker, kTasks, /*reply_in_batches=*/false);
  EXPECT_EQ(received.assignments, kTasks);
  EXPECT_EQ(received.batches, 0);
  ExpectCompleted(run_id);
}

TEST_F(WorkerBatchTest, BatchHoldingABatch_EndsTheStreamWithInvalidArgument) {
  RawWorker worker(cluster_.address(), "w-nested", /*accepts_batches=*/true);
  worker.ReadWelcome();
  v1::ConnectRequest nested;
  nested.mutable_batch()
      ->add_messages()
      ->mutable_batch()
      ->add_messages()
      ->mutable_credits()
      ->set_slots(1);
  worker.Write(nested);
  grpc::Status status = worker.ReadToEnd();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("a batch may not hold a batch"));

  ExpectStillServing("w-after-nested");
}

TEST_F(WorkerBatchTest, BatchOverTheMessageLimit_EndsTheStreamWithInvalidArgument) {
  RawWorker worker(cluster_.address(), "w-4097", /*accepts_batches=*/true);
  worker.ReadWelcome();
  v1::ConnectRequest batch;
  for (int i = 0; i < 4097; ++i) batch.mutable_batch()->add_messages()->mutable_heartbeat();
  worker.Write(batch);
  grpc::Status status = worker.ReadToEnd();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("limit of 4096"));

  ExpectStillServing("w-after-4097");
}

TEST_F(WorkerBatchTest, BatchAtTheMessageLimit_Accepted) {
  RawWorker worker(cluster_.address(), "w-4096", /*accepts_batches=*/true);
  worker.ReadWelcome();
  v1::ConnectRequest batch;
  for (int i = 0; i < 4096; ++i) batch.mutable_batch()->add_messages()->mutable_heartbeat();
  ASSERT_TRUE(worker.Write(batch));
  // The stream stays open: the same worker still gets and completes work.
  const std::string run_id = SubmitBoard(3);
  EXPECT_EQ(Serve(worker, 3, /*reply_in_batches=*/true).assignments, 3);
  ExpectCompleted(run_id);
}

}  // namespace
}  // namespace taskboard
