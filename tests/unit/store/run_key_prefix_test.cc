#include "scheduler/store/run_key_prefix.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "rocksdb/slice.h"
#include "scheduler/store/keys.h"

namespace taskboard::store {
namespace {

std::string PrefixOf(const rocksdb::SliceTransform& prefix, const std::string& key) {
  if (!prefix.InDomain(key)) return "<out of domain>";
  return prefix.Transform(key).ToString();
}

TEST(RunKeyPrefix, KeysOfOneRun_ShareTheRunsPrefix) {
  std::shared_ptr<const rocksdb::SliceTransform> prefix = NewRunKeyPrefix();
  const std::string run = keys::Run("run-1");
  EXPECT_EQ(PrefixOf(*prefix, keys::Task("run-1", "t9")), run);
  EXPECT_EQ(PrefixOf(*prefix, keys::Task("run-1", "t10")), run);
  EXPECT_EQ(PrefixOf(*prefix, keys::Event("run-1", 7)), run);
  EXPECT_EQ(PrefixOf(*prefix, keys::Run("run-1")), run);
  EXPECT_EQ(PrefixOf(*prefix, keys::RunPhase("run-1", 3)), keys::RunPhases("run-1"));
  EXPECT_NE(PrefixOf(*prefix, keys::Task("run-2", "t9")), run);
}

TEST(RunKeyPrefix, KeysWithoutARun_AreOutOfDomain) {
  std::shared_ptr<const rocksdb::SliceTransform> prefix = NewRunKeyPrefix();
  EXPECT_FALSE(prefix->InDomain(keys::Idempotency("retry-42")));
  EXPECT_FALSE(prefix->InDomain(""));
  EXPECT_FALSE(prefix->InDomain(std::string("\0\0\0\x09short", 9)));
}

}  // namespace
}  // namespace taskboard::store
