// `custom{external: ADDR}` across real processes: the test runs a
// PolicyService (as a client in any language would), a taskflow whose first
// task makes tool calls, and a second task whose command agent prints the
// envelope it received: its prior work is what the service chose, or the
// declared_deps_only fallback with the reason when the service is down.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"
#include "taskboard/v1/policy.grpc.pb.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

// Chooses the newest observation of the ledger it is shown, and remembers
// what it was asked.
class NewestOnlyPolicy final : public v1::PolicyService::Service {
 public:
  NewestOnlyPolicy() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~NewestOnlyPolicy() override { server_->Shutdown(); }

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  std::vector<v1::SelectPriorWorkRequest> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

  grpc::Status SelectPriorWork(grpc::ServerContext*, const v1::SelectPriorWorkRequest* request,
                               v1::SelectPriorWorkResponse* response) override {
    absl::MutexLock lock(&mu_);
    requests_.push_back(*request);
    if (request->ledger_size() > 0) {
      response->add_seqs(request->ledger(request->ledger_size() - 1).seq());
    }
    response->set_narrative("chosen by the test's PolicyService");
    return grpc::Status::OK;
  }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  absl::Mutex mu_;
  std::vector<v1::SelectPriorWorkRequest> requests_;
};

std::string Flow(const std::string& policy_address) {
  return absl::StrCat(R"(
name: external-policy
flowPolicy: {type: custom, external: ")",
                      policy_address, R"(", externalTimeoutMs: 2000}
phases:
  - id: explore
    agent: echo
    task: 'tool list_files {"path": "."}'
  - id: build
    agent: echo
    task: envelope
    dependsOn: [explore]
)");
}

class PolicyServiceTest : public testing::ClusterTest {
 protected:
  // The prior work the `build` task received, from its printed envelope.
  Json BuildPriorWork(const std::string& flow) {
    absl::StatusOr<std::string> run_id = cluster_.Submit(flow);
    EXPECT_THAT(run_id.status(), IsOk());
    if (!run_id.ok()) return Json();
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk());
    if (!run.ok()) return Json();
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_.Logs();
    absl::StatusOr<Json> envelope = ParseJson(run->output());
    EXPECT_THAT(envelope, IsOk()) << run->output();
    return envelope.ok() ? (*envelope)["prior_work"] : Json();
  }
};

TEST_F(PolicyServiceTest, TheServicesChoiceReachesTheAgent) {
  NewestOnlyPolicy policy;
  Json prior_work = BuildPriorWork(Flow(policy.address()));
  ASSERT_EQ(prior_work["observations"].size(), 1u) << prior_work.dump();
  EXPECT_EQ(prior_work["observations"][0]["tool"], "list_files");
  EXPECT_EQ(prior_work["observations"][0]["task_id"], "explore");
  EXPECT_EQ(prior_work["narrative"], "chosen by the test's PolicyService");
  EXPECT_EQ(prior_work["meta"]["policy"], "custom");

  std::vector<v1::SelectPriorWorkRequest> requests = policy.requests();
  ASSERT_EQ(requests.size(), 2u);  // one per dispatch
  EXPECT_EQ(requests[1].task().task_id(), "build");
  EXPECT_THAT(requests[1].task().deps(), ::testing::ElementsAre("explore"));
  EXPECT_EQ(requests[1].ledger_size(), 1);
}

TEST_F(PolicyServiceTest, ServiceUnreachable_FallsBackToDeclaredDepsWithTheReason) {
  // Nothing listens on a port we just released.
  std::string address;
  {
    NewestOnlyPolicy gone;
    address = gone.address();
  }
  Json prior_work = BuildPriorWork(Flow(address));
  EXPECT_EQ(prior_work["meta"]["policy"], "declared_deps_only");
  EXPECT_THAT(prior_work["meta"]["fallback_reason"].get<std::string>(),
              HasSubstr("PolicyService at " + address));
  ASSERT_EQ(prior_work["observations"].size(), 1u) << prior_work.dump();
  EXPECT_EQ(prior_work["observations"][0]["task_id"], "explore");
}

}  // namespace
}  // namespace taskboard
