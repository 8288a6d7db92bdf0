// The ledger book keeps only indexes in memory and reads observation bodies
// through a bounded cache from the store: selections return exactly what a
// ledger holding its bodies returns, read only what they select, and report
// store failures as errors.

#include "scheduler/engine/tool_calls/ledger_book.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/policy/compaction.h"
#include "scheduler/policy/external_policy.h"
#include "scheduler/policy/in_memory_task_graph.h"
#include "scheduler/policy/prior_work_policy.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/ledger_reads_store.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::LedgerReadsStore;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kRequest[] = "req-1";
constexpr int kSize = 1'000;

// Call i: by filler task i / 10, except 8 calls in the middle by the deps
// of task x (dep-0, dep-1); every 7th call failed; three tools.
v1::Observation Call(int64_t i) {
  v1::Observation obs;
  obs.set_run_id(kRequest);
  const int64_t dep_slot = i - kSize / 2;
  obs.set_task_id(dep_slot >= 0 && dep_slot < 8 ? absl::StrCat("dep-", dep_slot % 2)
                                                : absl::StrCat("filler-", i / 10));
  obs.set_tool_name(i % 3 == 0 ? "read_file" : (i % 3 == 1 ? "search" : "http_get"));
  obs.set_args_json(absl::StrCat("{\"path\":\"src/file_", i, ".cc\"}"));
  if (i % 7 == 0) {
    obs.set_error(absl::StrCat("no such file: src/file_", i, ".cc"));
  } else {
    obs.set_result_json(absl::StrCat("{\"content\":\"contents of file ", i, "\"}"));
  }
  return obs;
}

class LedgerBookTest : public ::testing::Test {
 protected:
  LedgerBookTest() : reads_(store_), in_memory_(kRequest) {
    LedgerBook writer(&store_, /*cache_bytes=*/0);
    EXPECT_TRUE(writer.Get(kRequest).ok());
    store::WriteBatch batch;
    for (int64_t i = 0; i < kSize; ++i) {
      writer.Append(kRequest, Call(i), batch);
      in_memory_.Append(Call(i));
    }
    EXPECT_THAT(store_.Write(batch), IsOk());
    const policy::TaskKey x{kRequest, "x"};
    graph_.AddTask(x, {{kRequest, "dep-0"}, {kRequest, "dep-1"}});
    graph_.AddTask({kRequest, "dep-1"}, {{kRequest, "filler-3"}});
    for (int task = 0; task < kSize / 10; task += 4) {
      graph_.SetCompleted({kRequest, absl::StrCat("filler-", task)}, true);
    }
  }

  // A book over the counting store with a cold cache of `cache_bytes`.
  std::unique_ptr<LedgerBook> ColdBook(int64_t cache_bytes) {
    return std::make_unique<LedgerBook>(&reads_, cache_bytes);
  }
  policy::RequestLedger& LedgerOf(LedgerBook& book) {
    absl::StatusOr<policy::RequestLedger*> ledger = book.Get(kRequest);
    EXPECT_TRUE(ledger.ok()) << ledger.status();
    return **ledger;
  }
  policy::PolicyInput Input(const policy::RequestLedger& ledger) {
    return {ledger, graph_, {kRequest, "x"}};
  }

  store::MemoryStore store_;
  LedgerReadsStore reads_;
  policy::RequestLedger in_memory_;
  policy::InMemoryTaskGraph graph_;
};

std::vector<v1::FlowPolicy> EveryPolicy() {
  std::vector<v1::FlowPolicy> policies(8);
  policies[0].mutable_none();
  policies[1].mutable_declared_deps_only();
  policies[2].mutable_ancestors()->set_transitive(true);
  policies[3].mutable_recent_trajectory()->set_n(8);
  policies[4].mutable_recent_trajectory()->set_n(50);
  policies[4].mutable_recent_trajectory()->set_max_tokens(200);
  policies[5].mutable_all_completed()->set_max_tokens(5'000);
  v1::CustomPolicy& custom = *policies[6].mutable_custom();
  custom.set_deps(true);
  custom.set_errors(true);
  custom.add_tools("http_get");
  custom.set_recent(5);
  custom.set_max_tokens(3'000);
  policies[7].mutable_compact()->set_recent_n(6);
  return policies;
}

TEST_F(LedgerBookTest, Select_EveryPolicy_SameAsALedgerHoldingItsBodies) {
  // A cache far smaller than the ledger: selections mix hits and misses.
  std::unique_ptr<LedgerBook> book = ColdBook(16 << 10);
  policy::RequestLedger& ledger = LedgerOf(*book);
  ASSERT_EQ(ledger.size(), kSize);
  for (const v1::FlowPolicy& policy : EveryPolicy()) {
    for (int round = 0; round < 2; ++round) {
      v1::PriorWork expected = policy::SelectPriorWork(policy, Input(in_memory_));
      v1::PriorWork got = policy::SelectPriorWork(policy, Input(ledger));
      EXPECT_THAT(ledger.TakeReadError(), IsOk());
      EXPECT_EQ(got.SerializeAsString(), expected.SerializeAsString())
          << policy.ShortDebugString() << " round " << round;
    }
  }
  EXPECT_EQ(policy::BuildExternalRequest(Input(ledger), {}, 300).SerializeAsString(),
            policy::BuildExternalRequest(Input(in_memory_), {}, 300).SerializeAsString());
  v1::CompactPolicy compact;
  compact.set_recent_n(8);
  compact.set_summarizer_agent("summarizer");
  const policy::CompactionPlan plan = policy::PlanCompaction(compact, ledger);
  EXPECT_EQ(policy::SummarizerPrompt(ledger, plan).text,
            policy::SummarizerPrompt(in_memory_, plan).text);
  EXPECT_THAT(ledger.TakeReadError(), IsOk());
  EXPECT_LE(book->cache().bytes(), 16 << 10);
}

TEST_F(LedgerBookTest, Select_ColdCache_ReadsOnlyTheSelectedEntriesInOneMultiGet) {
  std::unique_ptr<LedgerBook> book = ColdBook(LedgerBook::kDefaultCacheBytes);
  policy::RequestLedger& ledger = LedgerOf(*book);
  v1::FlowPolicy deps;
  deps.mutable_declared_deps_only();
  v1::PriorWork prior_work = policy::SelectPriorWork(deps, Input(ledger));
  EXPECT_EQ(prior_work.meta().selected(), 8);
  EXPECT_EQ(reads_.entries_read, 8);
  EXPECT_EQ(reads_.multi_gets, 1);

  v1::FlowPolicy recent;
  recent.mutable_recent_trajectory()->set_n(8);
  policy::SelectPriorWork(recent, Input(ledger));
  EXPECT_EQ(reads_.entries_read, 16);
  EXPECT_EQ(reads_.multi_gets, 2);
}

TEST_F(LedgerBookTest, Select_WarmCache_NoStoreReads) {
  std::unique_ptr<LedgerBook> book = ColdBook(LedgerBook::kDefaultCacheBytes);
  policy::RequestLedger& ledger = LedgerOf(*book);
  v1::FlowPolicy deps;
  deps.mutable_declared_deps_only();
  policy::SelectPriorWork(deps, Input(ledger));
  const int64_t after_first = reads_.entries_read;
  policy::SelectPriorWork(deps, Input(ledger));
  EXPECT_EQ(reads_.entries_read, after_first);
  EXPECT_EQ(book->cache().hits(), 8);
}

TEST_F(LedgerBookTest, Append_NewEntryIsHot_SelectedWithoutAStoreRead) {
  std::unique_ptr<LedgerBook> book = ColdBook(LedgerBook::kDefaultCacheBytes);
  policy::RequestLedger& ledger = LedgerOf(*book);
  store::WriteBatch batch;
  const v1::Observation& stored = book->Append(kRequest, Call(kSize), batch);
  EXPECT_EQ(stored.seq(), kSize + 1);
  v1::FlowPolicy recent;
  recent.mutable_recent_trajectory()->set_n(1);
  v1::PriorWork prior_work = policy::SelectPriorWork(recent, Input(ledger));
  ASSERT_EQ(prior_work.observations_size(), 1);
  EXPECT_EQ(prior_work.observations(0).seq(), kSize + 1);
  EXPECT_EQ(reads_.entries_read, 0);
}

TEST_F(LedgerBookTest, Select_StoreReadFails_ErrorKeptForTheCallerNamingRequestAndCause) {
  std::unique_ptr<LedgerBook> book = ColdBook(LedgerBook::kDefaultCacheBytes);
  policy::RequestLedger& ledger = LedgerOf(*book);
  reads_.fail_reads = true;
  v1::FlowPolicy deps;
  deps.mutable_declared_deps_only();
  v1::PriorWork prior_work = policy::SelectPriorWork(deps, Input(ledger));
  EXPECT_EQ(prior_work.observations_size(), 0);
  EXPECT_THAT(ledger.TakeReadError(),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("ledger of request req-1"), HasSubstr("injected"))));
  // Taken once.
  EXPECT_THAT(ledger.TakeReadError(), IsOk());
  const std::vector<int64_t> seqs = {1, 2};
  EXPECT_THAT(ledger.Read(seqs).status(), StatusIs(absl::StatusCode::kUnavailable));

  // The store reads again: so does the ledger.
  reads_.fail_reads = false;
  EXPECT_EQ(policy::SelectPriorWork(deps, Input(ledger)).observations_size(), 8);
  EXPECT_THAT(ledger.TakeReadError(), IsOk());
}

TEST_F(LedgerBookTest, Read_EntryMissingFromTheStore_DataLossNamingSeq) {
  store::WriteBatch batch;
  batch.Delete(store::Column::kLedger, store::keys::LedgerEntry(kRequest, 5));
  std::unique_ptr<LedgerBook> book = ColdBook(LedgerBook::kDefaultCacheBytes);
  policy::RequestLedger& ledger = LedgerOf(*book);
  ASSERT_THAT(store_.Write(batch), IsOk());
  const std::vector<int64_t> seqs = {4, 5};
  EXPECT_THAT(ledger.Read(seqs).status(),
              StatusIs(absl::StatusCode::kDataLoss,
                       AllOf(HasSubstr("ledger entry 5 of request req-1"), HasSubstr("missing"))));
}

TEST_F(LedgerBookTest, Cache_ReadingMoreThanItHolds_StaysWithinItsBudget) {
  std::unique_ptr<LedgerBook> book = ColdBook(8 << 10);
  policy::RequestLedger& ledger = LedgerOf(*book);
  for (int64_t first = 1; first <= kSize; first += 100) {
    std::vector<int64_t> seqs;
    for (int64_t seq = first; seq < first + 100; ++seq) seqs.push_back(seq);
    ASSERT_THAT(ledger.Read(seqs).status(), IsOk());
    EXPECT_LE(book->cache().bytes(), 8 << 10);
  }
  EXPECT_GT(book->cache().entries(), 0);
  EXPECT_GT(book->cache().evictions(), 0);
}

TEST_F(LedgerBookTest, Index_TensOfBytesPerEntry) {
  std::unique_ptr<LedgerBook> book = ColdBook(0);
  policy::RequestLedger& ledger = LedgerOf(*book);
  EXPECT_FALSE(ledger.holds_bodies());
  // tokens, task and tool seqs (8 bytes each), error seqs for 1 in 7, and
  // per-task keys shared by ten calls.
  EXPECT_LT(ledger.IndexBytes() / ledger.size(), 64) << ledger.IndexBytes();
}

}  // namespace
}  // namespace taskboard::engine
