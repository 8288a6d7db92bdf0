// Tenants through the engine (docs/security.md#tenants): a run records the
// tenant it was submitted for, and the child runs of nested patterns inherit
// their parent's, so tenant-scoped reads (run_reader.h) see the whole tree.

#include <optional>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;

// A plan whose every step runs as a child supervisor run.
constexpr char kNested[] = R"({"name": "migrate", "kind": "plan_and_execute",
    "planAndExecute": {"goal": "migrate", "plannerAgent": "planner", "synthesizerAgent": "writer",
      "stepExecutor": {"plannerAgent": "lead", "workerAgent": "coder",
                       "reviewerAgent": "lead", "synthesizerAgent": "lead"}}})";

std::string SubmitFor(EngineHarness& h, const std::string& tenant) {
  SubmitRequest request;
  request.spec = taskboard::testing::LoadValidFlow(kNested);
  request.tenant = tenant;
  std::optional<absl::StatusOr<SubmitResult>> result;
  h.engine().Submit(std::move(request), [&](absl::StatusOr<SubmitResult> r) { result = r; });
  h.RunOnce();
  EXPECT_TRUE(result.has_value() && result->ok());
  return result.has_value() && result->ok() ? (*result)->run_id : "";
}

std::string TenantOf(EngineHarness& h, const std::string& run_id) {
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(h.store(), run_id);
  EXPECT_TRUE(record.ok()) << record.status();
  return record.ok() ? record->tenant() : "<unreadable>";
}

TEST(RunTenantTest, SubmittedRun_RecordsItsTenant_ChildRunInheritsIt) {
  EngineHarness h;
  const std::string run = SubmitFor(h, "acme");
  EXPECT_EQ(TenantOf(h, run), "acme");

  TestWorker w = h.Connect("w1", {"planner", "writer", "lead", "coder"}, 8);
  v1::Assignment planner = h.OnlyAssignment(w);
  h.Finish(w, planner, true, R"({"tasks": [{"id": "storage", "goal": "Migrate storage"}]})");
  const std::string child = h.ReadTaskView(run, "storage").child_run_id();
  ASSERT_FALSE(child.empty()) << "the step did not start a child run";
  EXPECT_EQ(TenantOf(h, child), "acme");

  // Tenant-scoped listing sees the parent and its child; another tenant neither.
  absl::StatusOr<v1::ListRunsResponse> acme = ListRuns(h.store(), {}, std::string("acme"));
  ASSERT_TRUE(acme.ok());
  EXPECT_EQ(acme->runs_size(), 2);
  absl::StatusOr<v1::ListRunsResponse> globex = ListRuns(h.store(), {}, std::string("globex"));
  ASSERT_TRUE(globex.ok());
  EXPECT_EQ(globex->runs_size(), 0);
  absl::StatusOr<v1::ListRunsResponse> all = ListRuns(h.store(), {});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->runs_size(), 2);
}

// The store a listing reads, counting the run records it touches.
class CountingStore final : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  absl::StatusOr<std::optional<std::string>> Get(store::Column column,
                                                 absl::string_view key) override {
    if (column == store::Column::kRuns) ++run_reads;
    return inner_.Get(column, key);
  }
  absl::Status Scan(store::Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override {
    return inner_.Scan(column, start, end, Counted(column, visit));
  }
  absl::Status ScanReverse(store::Column column, absl::string_view start, absl::string_view end,
                           const Visitor& visit) override {
    return inner_.ScanReverse(column, start, end, Counted(column, visit));
  }
  int run_reads = 0;

 private:
  Visitor Counted(store::Column column, const Visitor& visit) {
    return [this, column, &visit](absl::string_view key, absl::string_view value) {
      if (column == store::Column::kRuns) ++run_reads;
      return visit(key, value);
    };
  }
};

// A tenant's listing goes through its own index: with 100 runs of another
// tenant stored, listing acme's 3 (in pages of 2) reads acme's records only.
TEST(RunTenantTest, TenantListing_ReadsOnlyThatTenantsRuns) {
  EngineHarness h;
  std::vector<std::string> acme;
  for (int i = 0; i < 100; ++i) {
    if (i % 40 == 0) acme.push_back(SubmitFor(h, "acme"));
    SubmitFor(h, "globex");
    h.clock().Advance(1);
  }
  ASSERT_EQ(acme.size(), 3u);
  CountingStore counting(h.store());
  v1::ListRunsRequest request;
  request.set_page_size(2);
  std::vector<std::string> listed;
  for (int page = 0; page < 3; ++page) {
    absl::StatusOr<v1::ListRunsResponse> runs = ListRuns(counting, request, std::string("acme"));
    ASSERT_TRUE(runs.ok()) << runs.status();
    for (const v1::Run& run : runs->runs()) listed.push_back(run.run_id());
    if (runs->next_page_token().empty()) break;
    request.set_page_token(runs->next_page_token());
  }
  EXPECT_THAT(listed, ::testing::ElementsAre(acme[2], acme[1], acme[0]));  // newest first
  EXPECT_LE(counting.run_reads, 6) << "other tenants' runs were read";
}

}  // namespace
}  // namespace taskboard::engine
