// The approval webhook's bounded queue: the oldest goes when it is full;
// deliveries are taken when due, the oldest due first.

#include "scheduler/notify/delivery_queue.h"

#include "gtest/gtest.h"

namespace taskboard::notify {
namespace {

Delivery Make(const std::string& id, int64_t due_ms = 0) {
  Delivery delivery;
  delivery.id = id;
  delivery.due_ms = due_ms;
  return delivery;
}

Delivery Sized(const std::string& id, size_t bytes) {
  Delivery delivery = Make(id);
  delivery.body.assign(bytes, 'x');
  return delivery;
}

TEST(DeliveryQueue, Full_DropsTheOldest) {
  DeliveryQueue queue(2, 1 << 20);
  EXPECT_TRUE(queue.Push(Make("a")).empty());
  EXPECT_TRUE(queue.Push(Make("b")).empty());
  std::vector<Delivery> dropped = queue.Push(Make("c"));
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].id, "a");
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.TakeDue(0)->id, "b");
  EXPECT_EQ(queue.TakeDue(0)->id, "c");
  EXPECT_FALSE(queue.TakeDue(0).has_value());
}

TEST(DeliveryQueue, TooManyBytes_DropsTheOldestUntilItFits) {
  DeliveryQueue queue(100, 1000);
  queue.Push(Sized("a", 400));
  queue.Push(Sized("b", 400));
  std::vector<Delivery> dropped = queue.Push(Sized("c", 500));
  ASSERT_EQ(dropped.size(), 1u);
  EXPECT_EQ(dropped[0].id, "a");
  EXPECT_EQ(queue.bytes(), 900u);
  // One delivery larger than the bound is kept, alone.
  dropped = queue.Push(Sized("huge", 5000));
  EXPECT_EQ(dropped.size(), 2u);
  EXPECT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue.TakeDue(0)->id, "huge");
  EXPECT_EQ(queue.bytes(), 0u);
}

TEST(DeliveryQueue, NotDue_WaitsAndOthersGoFirst) {
  DeliveryQueue queue(10, 1 << 20);
  queue.Push(Make("retry", 5'000));
  queue.Push(Make("new", 1'000));
  EXPECT_EQ(queue.NextDueMs(), 1'000);
  EXPECT_FALSE(queue.TakeDue(999).has_value());
  EXPECT_EQ(queue.TakeDue(1'000)->id, "new");
  EXPECT_FALSE(queue.TakeDue(4'999).has_value());
  EXPECT_EQ(queue.NextDueMs(), 5'000);
  EXPECT_EQ(queue.TakeDue(5'000)->id, "retry");
  EXPECT_FALSE(queue.NextDueMs().has_value());
}

}  // namespace
}  // namespace taskboard::notify
