// Prior work from a ledger whose bodies live in the store: selected at
// dispatch through the ledger cache, read from the store on a miss (only what
// is selected), and a store that cannot read fails the task to be dispatched
// with a message while the scheduler keeps serving.

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/ledger_reads_store.h"
#include "tests/unit/engine/read_file_calls.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::kReadArgs;
using ::taskboard::engine::testing::kReadResult;
using ::taskboard::engine::testing::LedgerReadsStore;
using ::taskboard::engine::testing::TestWorker;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::SizeIs;

constexpr char kChain[] = R"({"name": "chain", "phases": [
    {"id": "a", "agent": "coder", "task": "explore"},
    {"id": "b", "agent": "coder", "task": "build on a", "dependsOn": ["a"]}]})";

// An engine without a ledger cache over a store that counts ledger reads:
// every selected observation comes from the store.
class EngineLedgerReadsTest : public ::testing::Test {
 protected:
  EngineLedgerReadsTest() : h_(Options()), reads_(h_.store()) {
    h_.store_override = &reads_;
    h_.Restart();
  }
  static EngineOptions Options() {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.ledger_cache_bytes = 0;
    return options;
  }

  EngineHarness h_;
  LedgerReadsStore reads_;
};

TEST_F(EngineLedgerReadsTest, PriorWork_NoCache_ReadsTheSelectedCallsFromTheStore) {
  h_.Submit(kChain);
  TestWorker w = h_.Connect("w1", {"coder"});
  v1::Assignment a = h_.OnlyAssignment(w);
  h_.Observe(w, a, "read_file", kReadArgs, kReadResult);
  h_.Observe(w, a, "grep", R"({"q":"x"})", R"(["README.md"])");
  h_.Finish(w, a, true, "explored");

  v1::Assignment b = h_.OnlyAssignment(w);
  ASSERT_EQ(b.task_id(), "b");
  ASSERT_THAT(b.prior_work().observations(), SizeIs(2));
  EXPECT_EQ(b.prior_work().observations(0).result_json(), kReadResult);
  EXPECT_EQ(b.prior_work().observations(1).tool_name(), "grep");
  EXPECT_EQ(reads_.entries_read, 2);
  EXPECT_EQ(reads_.multi_gets, 1);
}

TEST_F(EngineLedgerReadsTest, PriorWork_StoreCannotRead_TaskFailsNamingTheReadAndOthersGoOn) {
  std::string run = h_.Submit(kChain);
  TestWorker w = h_.Connect("w1", {"coder"});
  v1::Assignment a = h_.OnlyAssignment(w);
  h_.Observe(w, a, "read_file", kReadArgs, kReadResult);
  reads_.fail_reads = true;
  h_.Finish(w, a, true, "explored");

  EXPECT_THAT(h_.TakeAssignments(w), ::testing::IsEmpty());
  v1::Task b = h_.ReadTaskView(run, "b");
  EXPECT_EQ(b.state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(b.error(), AllOf(HasSubstr("prior work of task 'b' could not be read"),
                               HasSubstr("injected disk failure"), HasSubstr("resume the run")));

  // The scheduler keeps serving: a new run is dispatched once reads work.
  reads_.fail_reads = false;
  h_.Submit(kChain);
  EXPECT_EQ(h_.OnlyAssignment(w).task_id(), "a");
}

}  // namespace
}  // namespace taskboard::engine
