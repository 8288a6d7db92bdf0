// WorkerRegistry::Pick: which connected worker a ready task goes to. A worker
// with an idle slot comes before one whose only free places are its prefetch
// queue, and a silent worker (a lease of its expired without a heartbeat)
// gets nothing.

#include "scheduler/dispatch/worker_registry.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::dispatch {
namespace {

class WorkerRegistryTest : public ::testing::Test {
 protected:
  // A worker offering `coder` with `slots` free places, `prefetch` of them a
  // queue ahead of its running tasks.
  ConnectedWorker& Connect(uint64_t stream_id, const std::string& worker_id, int slots,
                           int prefetch = 0) {
    v1::Hello hello;
    hello.set_worker_id(worker_id);
    hello.add_agents()->set_name("coder");
    hello.set_slots(slots);
    hello.set_prefetch(prefetch);
    return registry_.Add(stream_id, hello, nullptr, /*now_ms=*/0);
  }

  // Picks for `coder` and takes the credit, as a dispatch does; "" for none.
  std::string Dispatch() {
    ConnectedWorker* worker = registry_.Pick("coder");
    if (worker == nullptr) return "";
    worker->credits--;
    return worker->worker_id;
  }

  WorkerRegistry registry_;
};

TEST_F(WorkerRegistryTest, Add_KeepsTheHellosPrefetch) {
  EXPECT_EQ(Connect(1, "w1", /*slots=*/6, /*prefetch=*/2).prefetch, 2);
  EXPECT_EQ(Connect(2, "w2", /*slots=*/1, /*prefetch=*/-3).prefetch, 0);
}

TEST_F(WorkerRegistryTest, ResizePrefetch_MovesCapacityAndTheIdleSlotLine) {
  // One slot and a queue of one, both free; the queue grows to 5, so the
  // worker can take 6 and has an idle slot only above 5 credits.
  ConnectedWorker& worker = Connect(1, "w1", /*slots=*/2, /*prefetch=*/1);
  ResizePrefetch(worker, 5);
  EXPECT_EQ(worker.prefetch, 5);
  EXPECT_EQ(worker.capacity, 6);
  worker.credits = 6;
  EXPECT_EQ(Dispatch(), "w1");  // the idle slot
  EXPECT_EQ(worker.credits, 5);

  // Shrinking leaves granted credits alone; only the line moves.
  ResizePrefetch(worker, 0);
  EXPECT_EQ(worker.capacity, 1);
  EXPECT_EQ(worker.credits, 5);
}

TEST_F(WorkerRegistryTest, ResizePrefetch_ClampsAHostileSize) {
  ConnectedWorker& worker = Connect(1, "w1", /*slots=*/2, /*prefetch=*/1);
  ResizePrefetch(worker, 1'000'000'000);
  EXPECT_EQ(worker.prefetch, kMaxPrefetch);
  EXPECT_EQ(worker.capacity, 1 + kMaxPrefetch);
  ResizePrefetch(worker, -7);
  EXPECT_EQ(worker.prefetch, 0);
  EXPECT_EQ(worker.capacity, 1);
}

TEST_F(WorkerRegistryTest, Pick_PrefersAnIdleSlotOverAnotherWorkersQueuePlace) {
  // w1 comes first in round-robin order, but its two free places are only
  // its queue (one slot, busy); w2 has an idle slot.
  ConnectedWorker& w1 = Connect(1, "w1", /*slots=*/3, /*prefetch=*/2);
  w1.credits = 2;
  Connect(2, "w2", /*slots=*/1);

  EXPECT_EQ(Dispatch(), "w2");
  // No idle slot anywhere now: the queue places are used.
  EXPECT_EQ(Dispatch(), "w1");
  EXPECT_EQ(Dispatch(), "w1");
  EXPECT_EQ(Dispatch(), "");
}

TEST_F(WorkerRegistryTest, Pick_SlotFreedOutOfTurn_GetsTheNextTaskBeforeAnyQueue) {
  // Three workers with one slot and a queue of two each, all busy.
  Connect(1, "w1", /*slots=*/3, /*prefetch=*/2);
  ConnectedWorker& w2 = Connect(2, "w2", /*slots=*/3, /*prefetch=*/2);
  Connect(3, "w3", /*slots=*/3, /*prefetch=*/2);
  EXPECT_EQ(Dispatch(), "w1");
  EXPECT_EQ(Dispatch(), "w2");
  EXPECT_EQ(Dispatch(), "w3");

  // w2's task ends. Round-robin alone would queue the next task on w1.
  w2.credits++;
  EXPECT_EQ(Dispatch(), "w2");
  // Then the queues, round-robin.
  EXPECT_EQ(Dispatch(), "w3");
  EXPECT_EQ(Dispatch(), "w1");
}

TEST_F(WorkerRegistryTest, Pick_WithoutPrefetch_RoundRobin) {
  Connect(1, "w1", /*slots=*/2);
  Connect(2, "w2", /*slots=*/2);
  EXPECT_EQ(Dispatch(), "w1");
  EXPECT_EQ(Dispatch(), "w2");
  EXPECT_EQ(Dispatch(), "w1");
  EXPECT_EQ(Dispatch(), "w2");
  EXPECT_EQ(Dispatch(), "");
}

TEST_F(WorkerRegistryTest, Pick_SkipsASilentWorkerWithCredits) {
  ConnectedWorker& w1 = Connect(1, "w1", /*slots=*/4);
  w1.silent = true;
  Connect(2, "w2", /*slots=*/1);

  EXPECT_EQ(Dispatch(), "w2");
  EXPECT_EQ(Dispatch(), "") << "only the silent worker has credits left";
  EXPECT_EQ(w1.credits, 4);

  w1.silent = false;  // it spoke again
  EXPECT_EQ(Dispatch(), "w1");
}

}  // namespace
}  // namespace taskboard::dispatch
