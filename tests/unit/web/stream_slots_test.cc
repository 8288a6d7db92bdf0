#include "scheduler/web/stream_slots.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::web {
namespace {

using ::testing::HasSubstr;

TEST(StreamSlots, OneTenantAtItsBound_OthersStillServed) {
  StreamSlots slots(/*max_total=*/10, /*max_per_tenant=*/2);
  std::vector<std::unique_ptr<StreamSlots::Slot>> held;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::unique_ptr<StreamSlots::Slot>> slot = slots.Acquire("acme");
    ASSERT_TRUE(slot.ok());
    held.push_back(*std::move(slot));
  }
  absl::StatusOr<std::unique_ptr<StreamSlots::Slot>> third = slots.Acquire("acme");
  EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(third.status().message(), HasSubstr("tenant 'acme'"));
  EXPECT_THAT(third.status().message(), HasSubstr("--http-max-streams-per-tenant"));
  EXPECT_TRUE(slots.Acquire("globex").ok());
  EXPECT_EQ(slots.open_for("acme"), 2);
}

TEST(StreamSlots, TotalBound_NamesItsFlag) {
  StreamSlots slots(/*max_total=*/3, /*max_per_tenant=*/3);
  std::vector<std::unique_ptr<StreamSlots::Slot>> held;
  for (const char* tenant : {"a", "b", "c"}) held.push_back(*slots.Acquire(tenant));
  absl::StatusOr<std::unique_ptr<StreamSlots::Slot>> more = slots.Acquire("d");
  EXPECT_EQ(more.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(more.status().message(), HasSubstr("--http-max-streams allows"));
}

TEST(StreamSlots, ReleasedSlot_ServesTheNextCaller) {
  StreamSlots slots(/*max_total=*/1, /*max_per_tenant=*/1);
  {
    absl::StatusOr<std::unique_ptr<StreamSlots::Slot>> first = slots.Acquire("");
    ASSERT_TRUE(first.ok());
    EXPECT_FALSE(slots.Acquire("").ok());
  }
  EXPECT_EQ(slots.open(), 0);
  EXPECT_TRUE(slots.Acquire("").ok());
}

}  // namespace
}  // namespace taskboard::web
