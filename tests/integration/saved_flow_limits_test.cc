// Saved flows are bounded, with real processes (docs/services.md): a
// scheduler with small --saved-flow-max-versions / --saved-flows-max-*
// keeps only the newest versions of a flow saved 100 times over the limit,
// refuses 100 times the flows or the bytes a tenant may keep with
// RESOURCE_EXHAUSTED naming the flag (still after a kill -9 and a restart:
// the quota is counted from the store), and then runs a saved flow. Flows a
// scheduler from before per-tenant keys stored are moved when it starts, and
// held to the same limits.

#include <csignal>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::HasSubstr;
using testing::IsOk;

ClusterOptions SmallFlowQuota() {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--saved-flow-max-versions",          "3",
                             "--saved-flows-max-per-tenant",       "2",
                             "--saved-flows-max-bytes-per-tenant", "20000"};
  return options;
}

std::string FlowText(const std::string& name, const std::string& said = "saved") {
  return absl::StrCat("name: ", name, "\nphases:\n  - {id: a, agent: echo, task: 'echo ", said,
                      "'}\n");
}

class SavedFlowLimitsTest : public testing::ClusterTest {
 protected:
  SavedFlowLimitsTest() : ClusterTest(SmallFlowQuota()) {}

  grpc::Status Save(const std::string& text, v1::SavedFlow* saved = nullptr) {
    v1::SaveFlowRequest request;
    request.mutable_source()->set_text(text);
    v1::SaveFlowResponse response;
    grpc::ClientContext context;
    grpc::Status status = cluster_.client().SaveFlow(&context, request, &response);
    if (saved != nullptr) *saved = response.flow();
    return status;
  }

  grpc::Status Get(const std::string& name, int64_t version) {
    v1::GetFlowRequest request;
    request.set_name(name);
    request.set_version(version);
    v1::GetFlowResponse response;
    grpc::ClientContext context;
    return cluster_.client().GetFlow(&context, request, &response);
  }
};

TEST_F(SavedFlowLimitsTest, HundredTimesTheVersions_KeepsTheNewestThree) {
  v1::SavedFlow saved;
  for (int i = 1; i <= 300; ++i) {
    grpc::Status status = Save(FlowText("digest", absl::StrCat("v", i)), &saved);
    ASSERT_TRUE(status.ok()) << i << ": " << status.error_message();
  }
  EXPECT_EQ(saved.version(), 300);
  EXPECT_TRUE(Get("digest", 298).ok());
  EXPECT_EQ(Get("digest", 297).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Get("digest", 1).error_code(), grpc::StatusCode::NOT_FOUND);

  v1::SubmitRunRequest submit;
  submit.mutable_saved()->set_name("digest");
  v1::SubmitRunResponse submitted;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_.client().SubmitRun(&context, submit, &submitted).ok());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(submitted.run_id());
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->output(), "v300\n");
  ExpectStillServing();
}

TEST_F(SavedFlowLimitsTest, HundredTimesTheFlowCount_RefusedNamingTheFlag_AlsoAfterARestart) {
  ASSERT_TRUE(Save(FlowText("one")).ok());
  ASSERT_TRUE(Save(FlowText("two")).ok());
  for (int i = 0; i < 200; ++i) {
    grpc::Status refused = Save(FlowText(absl::StrCat("extra-", i)));
    ASSERT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << i;
    EXPECT_THAT(refused.error_message(),
                HasSubstr("there are 2 saved flows, the scheduler's limit per tenant "
                          "(scheduler flag --saved-flows-max-per-tenant)"));
  }
  cluster_.KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());
  EXPECT_EQ(Save(FlowText("three")).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(Save(FlowText("two", "again")).ok()) << "a new version of a kept flow";
  ExpectStillServing();
}

TEST_F(SavedFlowLimitsTest, HundredTimesTheBytes_RefusedNamingTheFlag) {
  // 1 MB of text (under --max-spec-bytes) is stored as a spec and its
  // source: 2 MB, 100 times the 20,000 bytes a tenant may keep.
  grpc::Status refused = Save(FlowText("big", std::string(1'000'000, 'x')));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("over the scheduler's limit of 20000 bytes per tenant (scheduler flag "
                        "--saved-flows-max-bytes-per-tenant)"));
  EXPECT_EQ(Get("big", 0).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(Save(FlowText("small")).ok());
  ExpectStillServing();
}

// A store written by a scheduler from before per-tenant keys: flows saved
// now, then moved back to the old layout (and the marker removed) while the
// scheduler is down.
void MoveFlowsToTheOldKeys(const std::filesystem::path& data_dir) {
  absl::StatusOr<std::unique_ptr<store::Store>> opened =
      store::OpenRocksDbStore({.path = data_dir.string()});
  ASSERT_THAT(opened.status(), IsOk());
  store::Store& db = **opened;
  store::WriteBatch batch;
  ASSERT_THAT(db.Scan(store::Column::kFlows, "", "",
                      [&](absl::string_view key, absl::string_view value) {
                        std::optional<store::keys::FlowKey> flow = store::keys::ParseFlow(key);
                        EXPECT_TRUE(flow.has_value());
                        if (!flow.has_value()) return true;
                        batch.Put(store::Column::kFlows,
                                  store::keys::LegacyFlow(flow->name, flow->version), value);
                        batch.Delete(store::Column::kFlows, key);
                        return true;
                      }),
              IsOk());
  batch.Delete(store::Column::kMeta, store::keys::FlowKeysByTenant());
  ASSERT_FALSE(batch.empty());
  ASSERT_THAT(db.Write(batch), IsOk());
}

TEST_F(SavedFlowLimitsTest, FlowsUnderTheOldKeys_MovedAtStartAndHeldToTheLimits) {
  for (int i = 1; i <= 3; ++i) ASSERT_TRUE(Save(FlowText("digest", absl::StrCat("v", i))).ok());
  ASSERT_TRUE(Save(FlowText("other")).ok());
  cluster_.KillScheduler(SIGKILL);
  MoveFlowsToTheOldKeys(cluster_.dir() / "data");
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());

  v1::ListFlowsResponse listed;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_.client().ListFlows(&context, {}, &listed).ok());
  ASSERT_EQ(listed.flows_size(), 2);
  EXPECT_EQ(listed.flows(0).name(), "digest");
  EXPECT_EQ(listed.flows(0).version(), 3);
  EXPECT_EQ(listed.flows(1).name(), "other");
  // The moved flows count: a third name is refused, a fourth version of
  // digest deletes its first.
  EXPECT_EQ(Save(FlowText("third")).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  v1::SavedFlow saved;
  ASSERT_TRUE(Save(FlowText("digest", "v4"), &saved).ok());
  EXPECT_EQ(saved.version(), 4);
  EXPECT_EQ(Get("digest", 1).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(Get("digest", 2).ok());
  ExpectStillServing();
}

}  // namespace
}  // namespace taskboard
