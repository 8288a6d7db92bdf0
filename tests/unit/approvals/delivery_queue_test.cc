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

TEST(DeliveryQueue, Full_DropsTheOldest) {
  DeliveryQueue queue(2);
  EXPECT_FALSE(queue.Push(Make("a")).has_value());
  EXPECT_FALSE(queue.Push(Make("b")).has_value());
  std::optional<Delivery> dropped = queue.Push(Make("c"));
  ASSERT_TRUE(dropped.has_value());
  EXPECT_EQ(dropped->id, "a");
  EXPECT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue.TakeDue(0)->id, "b");
  EXPECT_EQ(queue.TakeDue(0)->id, "c");
  EXPECT_FALSE(queue.TakeDue(0).has_value());
}

TEST(DeliveryQueue, NotDue_WaitsAndOthersGoFirst) {
  DeliveryQueue queue(10);
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
