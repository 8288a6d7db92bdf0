#include "scheduler/engine/runs/idempotency_keys.h"

#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"

namespace taskboard::engine {
namespace {

TEST(IdempotencyKeys, Find_UnknownKey_IsEmpty) {
  store::MemoryStore store;
  IdempotencyKeys keys(&store);
  absl::StatusOr<std::string> found = keys.Find("k");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, "");
}

TEST(IdempotencyKeys, Record_RemembersAndWritesTheKeyWithTheRun) {
  store::MemoryStore store;
  IdempotencyKeys keys(&store);
  store::WriteBatch writes;
  keys.Record("k", "run-1", writes);
  EXPECT_EQ(*keys.Find("k"), "run-1");
  ASSERT_EQ(writes.ops().size(), 1u);
  EXPECT_EQ(writes.ops()[0].key, store::keys::Idempotency("k"));
  EXPECT_EQ(writes.ops()[0].value, "run-1");
}

TEST(IdempotencyKeys, Find_KeyOfARunNoLongerInMemory_ReadFromTheStore) {
  store::MemoryStore store;
  store::WriteBatch writes;
  IdempotencyKeys(&store).Record("k", "run-old", writes);
  ASSERT_TRUE(store.Write(writes).ok());
  IdempotencyKeys restarted(&store);
  EXPECT_EQ(*restarted.Find("k"), "run-old");
}

}  // namespace
}  // namespace taskboard::engine
