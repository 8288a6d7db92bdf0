#include "worker/session/task_book.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::ConnectRequest ResultFor(const std::string& lease_id) {
  v1::ConnectRequest report;
  report.mutable_task_result()->set_lease_id(lease_id);
  return report;
}

std::vector<std::string> UnackedLeases(const TaskBook& book) {
  std::vector<std::string> leases;
  for (const v1::ConnectRequest& report : book.UnackedReports()) {
    leases.push_back(report.task_result().lease_id());
  }
  return leases;
}

TEST(TaskBook, StartTakesASlot_FinishFreesIt) {
  TaskBook book(2);
  EXPECT_EQ(book.free_slots(), 2);
  EXPECT_TRUE(book.Start("t1", "l1"));
  EXPECT_TRUE(book.Start("t2", "l2"));
  EXPECT_EQ(book.free_slots(), 0);
  EXPECT_FALSE(book.Start("t3", "l3"));  // no slot
  EXPECT_TRUE(book.Finish("l1", ResultFor("l1")));
  EXPECT_EQ(book.free_slots(), 1);
  EXPECT_FALSE(book.IsRunning("l1"));
}

TEST(TaskBook, SameLeaseTwice_Refused) {
  TaskBook book(2);
  EXPECT_TRUE(book.Start("t1", "l1"));
  EXPECT_FALSE(book.Start("t1", "l1"));
  EXPECT_EQ(book.running(), 1);
}

TEST(TaskBook, Reports_KeptInFinishOrderUntilAcked) {
  TaskBook book(3);
  book.Start("t1", "l1");
  book.Start("t2", "l2");
  book.Finish("l2", ResultFor("l2"));
  book.Finish("l1", ResultFor("l1"));
  EXPECT_THAT(UnackedLeases(book), ElementsAre("l2", "l1"));
  EXPECT_TRUE(book.Ack("l2"));
  EXPECT_FALSE(book.Ack("l2"));
  EXPECT_THAT(UnackedLeases(book), ElementsAre("l1"));
}

// A finished task whose result waits for its ack is still held: a Hello
// after a reconnect or a scheduler restart keeps its lease, so the result
// that follows the Welcome is accepted instead of the task running again.
TEST(TaskBook, Held_ListsRunningAndUnackedTasks_NotAckedOnes) {
  TaskBook book(3);
  book.Start("t1", "l1");
  book.Start("t2", "l2");
  book.Start("t3", "l3");
  book.Finish("l1", ResultFor("l1"));
  book.Finish("l3", ResultFor("l3"));
  book.Ack("l3");
  const std::vector<v1::HeldTask> held = book.Held();
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0].task_id(), "t1");
  EXPECT_EQ(held[0].lease_id(), "l1");
  EXPECT_EQ(held[1].task_id(), "t2");
  EXPECT_EQ(held[1].lease_id(), "l2");
  EXPECT_THAT(book.HeldLeases(), ElementsAre("l1", "l2"));
  book.Ack("l1");
  EXPECT_THAT(book.HeldLeases(), ElementsAre("l2"));
}

TEST(TaskBook, Revoke_CancelsRunningAndDropsTheirReports) {
  TaskBook book(3);
  book.Start("t1", "l1");
  book.Start("t2", "l2");
  book.Start("t3", "l3");
  book.Finish("l3", ResultFor("l3"));

  EXPECT_THAT(book.Revoke({"l1", "l3", "unknown"}), ElementsAre("l1"));
  EXPECT_THAT(UnackedLeases(book), IsEmpty());
  EXPECT_THAT(book.HeldLeases(), ElementsAre("l2"));  // no longer held or heartbeated
  EXPECT_EQ(book.free_slots(), 1);                    // but still using its slot
  EXPECT_THAT(book.Revoke({"l1"}), IsEmpty());        // already revoked

  EXPECT_FALSE(book.Finish("l1", ResultFor("l1")));  // nothing to report
  EXPECT_EQ(book.free_slots(), 2);
  EXPECT_THAT(UnackedLeases(book), IsEmpty());
}

}  // namespace
}  // namespace taskboard::worker
