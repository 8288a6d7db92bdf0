#include "scheduler/dispatch/ready_queue.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::dispatch {
namespace {

// One ReadyRun per tenant, as the engine has one per run.
std::shared_ptr<ReadyRun> RunOf(const std::string& tenant) {
  static auto* runs = new std::map<std::string, std::shared_ptr<ReadyRun>>();
  std::shared_ptr<ReadyRun>& run = (*runs)[tenant];
  if (run == nullptr) run = std::make_shared<ReadyRun>(ReadyRun{tenant + "-run", tenant, false});
  return run;
}

// Task ids stay put for the test's life, as a run keeps them for its own.
absl::string_view Kept(const std::string& task_id) {
  static auto* ids = new std::set<std::string>();
  return *ids->insert(task_id).first;
}

ReadyEntry Entry(const std::string& tenant, const std::string& task, int64_t ready_ms,
                 int32_t priority = 0) {
  ReadyEntry entry;
  entry.priority = priority;
  entry.ready_ms = ready_ms;
  entry.order = ready_ms;
  entry.run = RunOf(tenant);
  entry.task_id = Kept(task);
  return entry;
}

std::vector<std::string> PopAll(ReadyQueue& queue, const std::string& agent) {
  std::vector<std::string> tasks;
  while (!queue.Empty(agent)) tasks.emplace_back(queue.Pop(agent).task_id);
  return tasks;
}

TEST(ReadyQueue, OneTenant_PriorityThenFifo) {
  ReadyQueue queue;
  queue.Push("a", Entry("", "first", 1));
  queue.Push("a", Entry("", "urgent", 3, /*priority=*/5));
  queue.Push("a", Entry("", "second", 2));
  queue.Push("a", Entry("", "second", 2));  // a repeat is ignored
  EXPECT_EQ(queue.Depth("a"), 3u);
  EXPECT_THAT(PopAll(queue, "a"), ::testing::ElementsAre("urgent", "first", "second"));
  EXPECT_EQ(queue.TotalDepth(), 0u);
}

TEST(ReadyQueue, AnotherTenantsSingleTaskDoesNotWaitBehindAThousand) {
  ReadyQueue queue;
  for (int i = 0; i < 1000; ++i) queue.Push("a", Entry("acme", "map-" + std::to_string(i), i));
  queue.Pop("a");  // acme was just served
  queue.Push("a", Entry("globex", "single", 5000));
  EXPECT_EQ(queue.Pop("a").task_id, "single");
  EXPECT_EQ(queue.Depth("a", "acme"), 999u);
  EXPECT_EQ(queue.Depth("a", "globex"), 0u);
}

TEST(ReadyQueue, TenantsTakeTurns) {
  ReadyQueue queue;
  for (int i = 0; i < 3; ++i) {
    queue.Push("a", Entry("acme", "a" + std::to_string(i), i));
    queue.Push("a", Entry("globex", "g" + std::to_string(i), 100 + i));
  }
  EXPECT_THAT(PopAll(queue, "a"), ::testing::ElementsAre("a0", "g0", "a1", "g1", "a2", "g2"));
}

TEST(ReadyQueue, PriorityComesBeforeTheTenantsTurn) {
  ReadyQueue queue;
  queue.Push("a", Entry("acme", "a0", 1));
  queue.Pop("a");
  queue.Push("a", Entry("acme", "a-urgent", 2, /*priority=*/3));
  queue.Push("a", Entry("globex", "g0", 1));
  EXPECT_EQ(queue.Pop("a").task_id, "a-urgent");
}

TEST(ReadyQueue, OldestReadyMsLooksAtEveryTenant) {
  ReadyQueue queue;
  EXPECT_FALSE(queue.OldestReadyMs().has_value());
  queue.Push("a", Entry("acme", "a0", 50));
  queue.Push("b", Entry("globex", "g0", 20, /*priority=*/-1));
  queue.Push("a", Entry("globex", "g1", 30));
  EXPECT_EQ(queue.OldestReadyMs(), 20);
}

TEST(ReadyQueue, OldestReadyMsOfOneAgent) {
  ReadyQueue queue;
  EXPECT_FALSE(queue.OldestReadyMs("a").has_value());
  queue.Push("a", Entry("acme", "a0", 50, /*priority=*/2));
  queue.Push("a", Entry("acme", "a1", 40));
  queue.Push("b", Entry("globex", "g0", 20));
  EXPECT_EQ(queue.OldestReadyMs("a"), 40);
  EXPECT_EQ(queue.OldestReadyMs("b"), 20);
}

TEST(ReadyQueue, TakeReadyUpTo_TakesTheOldEntriesOfEveryPriorityAndTenant) {
  ReadyQueue queue;
  queue.Push("a", Entry("acme", "old-urgent", 10, /*priority=*/5));
  queue.Push("a", Entry("acme", "new-urgent", 30, /*priority=*/5));
  queue.Push("a", Entry("acme", "old", 20));
  queue.Push("a", Entry("acme", "new", 40));
  queue.Push("a", Entry("globex", "g-old", 25, /*priority=*/-3));
  queue.Push("a", Entry("globex", "g-at", 26, /*priority=*/-3));
  queue.Push("b", Entry("acme", "other-agent", 1));
  std::vector<std::string> taken;
  for (const ReadyEntry& entry : queue.TakeReadyUpTo("a", 26)) taken.emplace_back(entry.task_id);
  EXPECT_THAT(taken, ::testing::UnorderedElementsAre("old-urgent", "old", "g-old", "g-at"));
  EXPECT_EQ(queue.Depth("a"), 2u);
  EXPECT_EQ(queue.Depth("a", "globex"), 0u);
  EXPECT_EQ(queue.TotalDepth(), 3u);
  EXPECT_THAT(PopAll(queue, "a"), ::testing::ElementsAre("new-urgent", "new"));
  EXPECT_THAT(queue.TakeReadyUpTo("missing", 100), ::testing::IsEmpty());
}

TEST(ReadyQueue, ARunInMemoryAgainUnderItsId_ItsEntriesAreNotTakenForTheEndedOnes) {
  ReadyQueue queue;
  ReadyEntry ended = Entry("", "t1", 5);
  ended.run = std::make_shared<ReadyRun>(ReadyRun{"run-r", "", false});
  ReadyEntry again = ended;
  again.run = std::make_shared<ReadyRun>(ReadyRun{"run-r", "", false});
  queue.Push("a", ended);
  ended.run->ended = true;  // the run left memory; its entry stays queued
  queue.Push("a", again);
  EXPECT_EQ(queue.Depth("a"), 2u) << "not a repeat: another run under the same id";
  int live = 0;
  while (!queue.Empty("a")) live += queue.Pop("a").run->ended ? 0 : 1;
  EXPECT_EQ(live, 1);
}

}  // namespace
}  // namespace taskboard::dispatch
