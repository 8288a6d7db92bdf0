// RunStorage (scheduler/engine/run_storage/run_storage.h) against the
// in-memory store and RocksDB by one suite: values, spaces, the limits and
// their messages, what a reopened store still holds, and that one root
// run's map is not another's.

#include "scheduler/engine/run_storage/run_storage.h"

#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::engine {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

enum class Backend { kMemory, kRocksDb };

class RunStorageTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { Reopen(); }

  // A store over the same data (RocksDB) or the same object (memory): what
  // a restarted scheduler would read.
  void Reopen() {
    storage_.reset();
    if (GetParam() == Backend::kMemory) {
      if (memory_ == nullptr) memory_ = std::make_unique<store::MemoryStore>();
      store_ = memory_.get();
    } else {
      rocks_.reset();
      absl::StatusOr<std::unique_ptr<store::Store>> opened =
          store::OpenRocksDbStore({.path = dir_.path() / "db"});
      ASSERT_TRUE(opened.ok()) << opened.status();
      rocks_ = *std::move(opened);
      store_ = rocks_.get();
    }
    storage_ = std::make_unique<RunStorage>(store_, limits_);
  }

  // Applies `call` and writes its batch, as the engine's commit would.
  absl::StatusOr<RunStorageAnswer> Apply(RunStorageCall call) {
    store::WriteBatch writes;
    absl::StatusOr<RunStorageAnswer> answer = storage_->Apply(call, writes);
    if (!writes.empty()) EXPECT_THAT(store_->Write(writes), IsOk());
    if (!answer.ok()) EXPECT_TRUE(writes.empty()) << "a refused call wrote something";
    return answer;
  }

  static RunStorageCall Set(std::string root, std::string key, std::string value,
                            std::string space = "", std::string tenant = "acme") {
    return {std::move(tenant), std::move(root), RunStorageOp::kSet,
            std::move(space),  std::move(key),  std::move(value)};
  }
  static RunStorageCall Get(std::string root, std::string key, std::string space = "",
                            std::string tenant = "acme") {
    return {std::move(tenant), std::move(root), RunStorageOp::kGet,
            std::move(space),  std::move(key),  ""};
  }

  RunStorageLimits limits_{
      .max_keys_per_run = 3, .max_value_bytes = 100, .max_run_bytes = 250, .max_tenant_bytes = 400};
  testing::TempDir dir_;
  std::unique_ptr<store::MemoryStore> memory_;
  std::unique_ptr<store::Store> rocks_;
  store::Store* store_ = nullptr;
  std::unique_ptr<RunStorage> storage_;
};

TEST_P(RunStorageTest, SetThenGet_ReturnsValueAndUsage) {
  absl::StatusOr<RunStorageAnswer> set = Apply(Set("r1", "greeting", "hello"));
  ASSERT_THAT(set, IsOk());
  EXPECT_EQ(set->run_keys, 1);
  EXPECT_EQ(set->run_bytes, 13);  // "greeting" + "hello"
  absl::StatusOr<RunStorageAnswer> got = Apply(Get("r1", "greeting"));
  ASSERT_THAT(got, IsOk());
  EXPECT_TRUE(got->found);
  EXPECT_EQ(got->value, "hello");
  absl::StatusOr<RunStorageAnswer> missing = Apply(Get("r1", "other"));
  ASSERT_THAT(missing, IsOk());
  EXPECT_FALSE(missing->found);
}

TEST_P(RunStorageTest, Values_SurviveReopen) {
  ASSERT_THAT(Apply(Set("r1", "k", "v1")), IsOk());
  ASSERT_THAT(Apply(Set("r1", "ctx", R"({"a": 1})", "context")), IsOk());
  Reopen();
  absl::StatusOr<RunStorageAnswer> got = Apply(Get("r1", "k"));
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->value, "v1");
  EXPECT_EQ(got->run_keys, 2);
  absl::StatusOr<RunStorageAnswer> context = Apply(Get("r1", "ctx", "context"));
  ASSERT_THAT(context, IsOk());
  EXPECT_EQ(context->value, R"({"a": 1})");
  EXPECT_EQ(storage_->TenantBytes("acme"), std::nullopt) << "usage is read on first write";
}

TEST_P(RunStorageTest, Spaces_AreSeparate) {
  ASSERT_THAT(Apply(Set("r1", "k", "text")), IsOk());
  ASSERT_THAT(Apply(Set("r1", "k", "[1,2]", "context")), IsOk());
  RunStorageCall list{"acme", "r1", RunStorageOp::kList, "context", "", ""};
  absl::StatusOr<RunStorageAnswer> listed = Apply(list);
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->entries, (std::map<std::string, std::string>{{"k", "[1,2]"}}));
  EXPECT_EQ(Apply(Get("r1", "k"))->value, "text");
}

TEST_P(RunStorageTest, RootRuns_DoNotSeeEachOther) {
  ASSERT_THAT(Apply(Set("r1", "secret", "one")), IsOk());
  absl::StatusOr<RunStorageAnswer> other = Apply(Get("r2", "secret"));
  ASSERT_THAT(other, IsOk());
  EXPECT_FALSE(other->found);
  // The same root run id under another tenant is another map too.
  absl::StatusOr<RunStorageAnswer> tenant = Apply(Get("r1", "secret", "", "globex"));
  ASSERT_THAT(tenant, IsOk());
  EXPECT_FALSE(tenant->found);
  Reopen();
  tenant = Apply(Get("r1", "secret", "", "globex"));
  ASSERT_THAT(tenant, IsOk());
  EXPECT_FALSE(tenant->found);
}

TEST_P(RunStorageTest, Delete_FreesRoom) {
  ASSERT_THAT(Apply(Set("r1", "a", "1")), IsOk());
  RunStorageCall del{"acme", "r1", RunStorageOp::kDelete, "", "a", ""};
  absl::StatusOr<RunStorageAnswer> deleted = Apply(del);
  ASSERT_THAT(deleted, IsOk());
  EXPECT_TRUE(deleted->found);
  EXPECT_EQ(deleted->run_keys, 0);
  EXPECT_EQ(deleted->run_bytes, 0);
  Reopen();
  EXPECT_FALSE(Apply(Get("r1", "a"))->found);
}

TEST_P(RunStorageTest, ValueOverLimit_RefusedNamingTheFlag) {
  EXPECT_THAT(
      Apply(Set("r1", "big", std::string(101, 'x'))),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--run-state-max-value-bytes")));
  EXPECT_FALSE(Apply(Get("r1", "big"))->found);
}

TEST_P(RunStorageTest, TooManyKeys_Refused_ButOverwriteAllowed) {
  ASSERT_THAT(Apply(Set("r1", "a", "1")), IsOk());
  ASSERT_THAT(Apply(Set("r1", "b", "2")), IsOk());
  ASSERT_THAT(Apply(Set("r1", "c", "3")), IsOk());
  EXPECT_THAT(Apply(Set("r1", "d", "4")),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--run-state-max-keys")));
  EXPECT_THAT(Apply(Set("r1", "c", "33")), IsOk());
}

TEST_P(RunStorageTest, RunBytesOverLimit_Refused) {
  ASSERT_THAT(Apply(Set("r1", "a", std::string(99, 'a'))), IsOk());
  ASSERT_THAT(Apply(Set("r1", "b", std::string(99, 'b'))), IsOk());
  EXPECT_THAT(
      Apply(Set("r1", "c", std::string(60, 'c'))),
      StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("--run-state-max-run-bytes")));
  // Shrinking a value is always allowed.
  EXPECT_THAT(Apply(Set("r1", "a", "small")), IsOk());
}

TEST_P(RunStorageTest, TenantBytesOverLimit_Refused_AlsoAfterReopen) {
  ASSERT_THAT(Apply(Set("r1", "a", std::string(99, 'a'))), IsOk());
  ASSERT_THAT(Apply(Set("r1", "b", std::string(99, 'b'))), IsOk());
  ASSERT_THAT(Apply(Set("r2", "a", std::string(99, 'a'))), IsOk());
  ASSERT_THAT(Apply(Set("r3", "a", std::string(99, 'a'))), IsOk());  // 400 bytes
  Reopen();
  EXPECT_THAT(Apply(Set("r4", "x", "y")), StatusIs(absl::StatusCode::kResourceExhausted,
                                                   HasSubstr("--run-state-max-tenant-bytes")));
  EXPECT_EQ(storage_->TenantBytes("acme"), 400);
  // Another tenant has its own budget.
  EXPECT_THAT(Apply(Set("r4", "x", "y", "", "globex")), IsOk());
}

TEST_P(RunStorageTest, BadKeysSpacesAndContextValues_AreInvalidArguments) {
  EXPECT_THAT(Apply(Set("r1", "", "v")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
  EXPECT_THAT(Apply(Set("r1", std::string(257, 'k'), "v")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 256")));
  EXPECT_THAT(Apply(Set("r1", "a\nb", "v")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("control character")));
  EXPECT_THAT(
      Apply(Set("r1", "k", "v", "secrets")),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"storage\" or \"context\"")));
  EXPECT_THAT(Apply(Set("r1", "k", "not json", "context")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("is not JSON")));
  EXPECT_THAT(Apply(Set("r1", "k", std::string("\xff\xfe"))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("UTF-8")));
}

TEST_P(RunStorageTest, ForgetInactive_ReadsAgainFromTheStore) {
  ASSERT_THAT(Apply(Set("r1", "k", "v")), IsOk());
  storage_->ForgetInactive([](const std::string&) { return false; });
  EXPECT_EQ(storage_->loaded_runs(), 0u);
  EXPECT_EQ(Apply(Get("r1", "k"))->value, "v");
}

INSTANTIATE_TEST_SUITE_P(Stores, RunStorageTest,
                         ::testing::Values(Backend::kMemory, Backend::kRocksDb),
                         [](const auto& info) {
                           return info.param == Backend::kMemory ? "Memory" : "RocksDb";
                         });

TEST(RunStateKeysTest, Entry_RoundTripsAndNestsUnderItsPrefixes) {
  const std::string key = store::keys::RunStateEntry("acme", "r1", "storage", "k/1");
  std::optional<store::keys::RunStateKey> parsed = store::keys::ParseRunStateEntry(key);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->tenant, "acme");
  EXPECT_EQ(parsed->root_run_id, "r1");
  EXPECT_EQ(parsed->space, "storage");
  EXPECT_EQ(parsed->key, "k/1");
  EXPECT_TRUE(absl::StartsWith(key, store::keys::RunStateOfRun("acme", "r1")));
  EXPECT_TRUE(absl::StartsWith(key, store::keys::RunStateOfTenant("acme")));
  // Length-prefixed: run "r1" is not a prefix of run "r10".
  EXPECT_FALSE(absl::StartsWith(store::keys::RunStateEntry("acme", "r10", "storage", "k"),
                                store::keys::RunStateOfRun("acme", "r1")));
  EXPECT_FALSE(store::keys::ParseRunStateEntry(key + "x").has_value());
  EXPECT_FALSE(store::keys::ParseRunStateEntry("schedule/x").has_value());
}

}  // namespace
}  // namespace taskboard::engine
