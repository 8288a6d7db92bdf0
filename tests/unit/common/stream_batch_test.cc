// Batches on the worker stream (common/stream_batch.h): what one write takes
// from a queue (TakeWrite) and which received batches a reader refuses
// (CheckBatch), on both directions' message types.

#include "common/stream_batch.h"

#include <deque>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "taskboard/v1/worker.pb.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::IsOk;
using testing::StatusIs;

// A result whose output makes it about `bytes` long on the wire; its lease
// names it.
v1::ConnectRequest Result(const std::string& lease, size_t bytes = 0) {
  v1::ConnectRequest message;
  message.mutable_task_result()->set_lease_id(lease);
  message.mutable_task_result()->set_output(std::string(bytes, 'x'));
  return message;
}

std::deque<v1::ConnectRequest> Results(int count, size_t bytes = 0) {
  std::deque<v1::ConnectRequest> queue;
  for (int i = 0; i < count; ++i) queue.push_back(Result(absl::StrCat("l", i), bytes));
  return queue;
}

// The leases of what one write carries, in order: a batch's messages, or the
// message itself.
std::vector<std::string> LeasesIn(const v1::ConnectRequest& write) {
  std::vector<std::string> leases;
  if (!write.has_batch()) {
    leases.push_back(write.task_result().lease_id());
    return leases;
  }
  for (const v1::ConnectRequest& message : write.batch().messages()) {
    leases.push_back(message.task_result().lease_id());
  }
  return leases;
}

std::vector<std::string> LeasesIn(const std::deque<v1::ConnectRequest>& queue) {
  std::vector<std::string> leases;
  for (const v1::ConnectRequest& message : queue)
    leases.push_back(message.task_result().lease_id());
  return leases;
}

// ---------------------------------------------------------------------------
// TakeWrite

TEST(TakeWrite, BatchesOff_TakesTheFrontMessageAlone) {
  std::deque<v1::ConnectRequest> queue = Results(3);
  v1::ConnectRequest write = TakeWrite(queue, /*batches=*/false);
  EXPECT_FALSE(write.has_batch());
  EXPECT_EQ(write.task_result().lease_id(), "l0");
  EXPECT_THAT(LeasesIn(queue), ElementsAre("l1", "l2"));
}

TEST(TakeWrite, BatchesOn_OneQueued_SentAsItselfNotAsABatch) {
  std::deque<v1::ConnectRequest> queue = Results(1);
  v1::ConnectRequest write = TakeWrite(queue, /*batches=*/true);
  EXPECT_FALSE(write.has_batch());
  EXPECT_EQ(write.task_result().lease_id(), "l0");
  EXPECT_TRUE(queue.empty());
}

TEST(TakeWrite, BatchesOn_SeveralQueued_OneBatchHoldingThemInOrder) {
  std::deque<v1::ConnectRequest> queue = Results(3);
  v1::ConnectRequest write = TakeWrite(queue, /*batches=*/true);
  ASSERT_TRUE(write.has_batch());
  EXPECT_THAT(LeasesIn(write), ElementsAre("l0", "l1", "l2"));
  EXPECT_TRUE(queue.empty());
  EXPECT_THAT(CheckBatch(write.batch()), IsOk());
}

TEST(TakeWrite, SchedulerSide_BatchesAssignmentsInOrder) {
  std::deque<v1::ConnectResponse> queue;
  for (const char* lease : {"a", "b"}) {
    queue.emplace_back().mutable_assignment()->set_lease_id(lease);
  }
  v1::ConnectResponse write = TakeWrite(queue, /*batches=*/true);
  ASSERT_TRUE(write.has_batch());
  ASSERT_EQ(write.batch().messages_size(), 2);
  EXPECT_EQ(write.batch().messages(0).assignment().lease_id(), "a");
  EXPECT_EQ(write.batch().messages(1).assignment().lease_id(), "b");
  EXPECT_TRUE(queue.empty());
}

TEST(TakeWrite, MoreThanTheMessageLimitQueued_StopsAtTheLimitAndKeepsTheRest) {
  std::deque<v1::ConnectRequest> queue = Results(kMaxBatchMessages + 10);
  v1::ConnectRequest write = TakeWrite(queue, /*batches=*/true);
  ASSERT_TRUE(write.has_batch());
  ASSERT_EQ(write.batch().messages_size(), kMaxBatchMessages);
  EXPECT_EQ(write.batch().messages(0).task_result().lease_id(), "l0");
  EXPECT_EQ(write.batch().messages(kMaxBatchMessages - 1).task_result().lease_id(),
            absl::StrCat("l", kMaxBatchMessages - 1));
  EXPECT_THAT(CheckBatch(write.batch()), IsOk());

  ASSERT_EQ(queue.size(), 10u);
  EXPECT_EQ(queue.front().task_result().lease_id(), absl::StrCat("l", kMaxBatchMessages));
  v1::ConnectRequest next = TakeWrite(queue, /*batches=*/true);
  EXPECT_EQ(next.batch().messages_size(), 10);
  EXPECT_TRUE(queue.empty());
}

TEST(TakeWrite, MoreThanTheByteLimitQueued_StopsBeforeTheMessageThatWouldPassIt) {
  // Five of about 300 KiB: three fit under 1 MiB, a fourth would not.
  std::deque<v1::ConnectRequest> queue = Results(5, 300 << 10);
  const size_t each = queue.front().ByteSizeLong();
  ASSERT_EQ(kBatchBytes / each, 3u) << "the sizes no longer exercise the limit";

  v1::ConnectRequest write = TakeWrite(queue, /*batches=*/true);
  EXPECT_THAT(LeasesIn(write), ElementsAre("l0", "l1", "l2"));
  size_t bytes = 0;
  for (const v1::ConnectRequest& message : write.batch().messages()) {
    bytes += message.ByteSizeLong();
  }
  EXPECT_LE(bytes, kBatchBytes);
  EXPECT_THAT(LeasesIn(queue), ElementsAre("l3", "l4"));
}

TEST(TakeWrite, OneMessageOverTheByteLimit_GoesAloneAndTheRestFollow) {
  std::deque<v1::ConnectRequest> queue;
  queue.push_back(Result("big", kBatchBytes + 100));
  queue.push_back(Result("small-1"));
  queue.push_back(Result("small-2"));

  v1::ConnectRequest first = TakeWrite(queue, /*batches=*/true);
  EXPECT_THAT(LeasesIn(first), ElementsAre("big"));
  EXPECT_TRUE(first.has_task_result()) << "a batch of one is sent as the message itself";
  EXPECT_GT(first.ByteSizeLong(), kBatchBytes);
  v1::ConnectRequest second = TakeWrite(queue, /*batches=*/true);
  EXPECT_THAT(LeasesIn(second), ElementsAre("small-1", "small-2"));
  EXPECT_TRUE(queue.empty());
}

TEST(TakeWrite, BigMessageBehindASmallOne_SmallGoesFirstWithoutIt) {
  std::deque<v1::ConnectRequest> queue;
  queue.push_back(Result("small"));
  queue.push_back(Result("big", kBatchBytes + 100));

  v1::ConnectRequest first = TakeWrite(queue, /*batches=*/true);
  EXPECT_THAT(LeasesIn(first), ElementsAre("small"));
  EXPECT_TRUE(first.has_task_result()) << "a batch of one is sent as the message itself";
  v1::ConnectRequest second = TakeWrite(queue, /*batches=*/true);
  EXPECT_THAT(LeasesIn(second), ElementsAre("big"));
  EXPECT_TRUE(queue.empty());
}

// ---------------------------------------------------------------------------
// CheckBatch

TEST(CheckBatch, UpToTheLimit_Ok) {
  v1::ConnectRequestBatch batch;
  EXPECT_THAT(CheckBatch(batch), IsOk());
  for (int i = 0; i < kMaxBatchMessages; ++i) batch.add_messages()->mutable_credits()->set_slots(1);
  EXPECT_THAT(CheckBatch(batch), IsOk());
}

TEST(CheckBatch, OverTheMessageLimit_InvalidArgumentNamingCountAndLimit) {
  v1::ConnectRequestBatch batch;
  for (int i = 0; i < kMaxBatchMessages + 1; ++i) {
    batch.add_messages()->mutable_credits()->set_slots(1);
  }
  EXPECT_THAT(CheckBatch(batch),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("4097 messages"), HasSubstr("limit of 4096"))));
}

TEST(CheckBatch, BatchInsideABatch_InvalidArgument) {
  v1::ConnectRequestBatch batch;
  batch.add_messages()->mutable_credits()->set_slots(1);
  batch.add_messages()->mutable_batch()->add_messages()->mutable_credits()->set_slots(1);
  EXPECT_THAT(CheckBatch(batch), StatusIs(absl::StatusCode::kInvalidArgument,
                                          HasSubstr("a batch may not hold a batch")));

  v1::ConnectResponseBatch response;
  response.add_messages()->mutable_batch();
  EXPECT_THAT(CheckBatch(response), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace taskboard
