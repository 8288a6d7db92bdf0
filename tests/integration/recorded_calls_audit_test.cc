// The audit trail across real processes (docs/audit.md): a scheduler with
// tokens records what different tokens of different tenants did, over real
// gRPC, with identities, addresses and outcomes; a tenant reads only its
// own; refused calls are recorded as refused and a flood of them is bounded;
// records survive a SIGKILL of the scheduler; --audit-retention sweeps them.

#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using ::taskboard::testing::ClusterOptions;
using ::taskboard::testing::IsOk;
using ::testing::HasSubstr;

constexpr char kAlice[] = "alice-token-0123456789";
constexpr char kBob[] = "bob-token-0123456789";
constexpr char kWorker[] = "worker-token-0123456789";
constexpr char kAdmin[] = "admin-token-0123456789";

constexpr char kTokens[] = R"(tokens:
  - {token: alice-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: bob-token-0123456789, name: bob, role: client, tenant: globex}
  - {token: worker-token-0123456789, name: pool, role: worker}
  - {token: admin-token-0123456789, name: ops, role: admin}
)";

// The refusal bound the tests use: 5 at once per source, then 1 a second.
constexpr int kRefusedBurst = 5;

testing::TempDir& Files() {
  static testing::TempDir dir;
  return dir;
}

const std::string& TokensPath() {
  static const std::string path = [] {
    std::string file = (Files().path() / "tokens.yaml").string();
    std::ofstream(file) << kTokens;
    return file;
  }();
  return path;
}

// Each test's scheduler writes its HTTP API port here.
std::string HttpPortFile() { return (Files().path() / "http.port").string(); }

ClusterOptions Audited(std::vector<std::string> extra = {}) {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--auth-tokens",         TokensPath(),
                             "--audit-refused-rate",  "1",
                             "--audit-refused-burst", absl::StrCat(kRefusedBurst),
                             "--http-listen",         "127.0.0.1:0",
                             "--http-port-file",      HttpPortFile()};
  options.scheduler_flags.insert(options.scheduler_flags.end(), extra.begin(), extra.end());
  options.worker_flags = {"--token", kWorker};
  options.client_token = kAlice;
  return options;
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

constexpr char kSlowFlow[] = R"(
name: slow
phases:
  - id: a
    agent: echo
    task: sleep 30 done
)";

constexpr char kRelease[] = R"(name: release
phases:
  - id: ok
    type: approval
    prompt: Ship it?
)";

class AuditTrailTest : public testing::ClusterTest {
 protected:
  explicit AuditTrailTest(ClusterOptions options = Audited()) : ClusterTest(std::move(options)) {}

  std::unique_ptr<v1::Scheduler::Stub> As(const std::string& token) {
    return v1::Scheduler::NewStub(testing::TestChannel(cluster_.address(), token));
  }

  grpc::Status List(const std::string& token, const v1::ListAuditEventsRequest& request,
                    v1::ListAuditEventsResponse* response) {
    return As(token)->ListAuditEvents(Context().get(), request, response);
  }

  // Polls ListAuditEvents as `token` until `done` holds (records are
  // written with the engine's next batch, just after the reply) or 20 s pass.
  v1::ListAuditEventsResponse ListUntil(
      const std::string& token, const v1::ListAuditEventsRequest& request,
      const std::function<bool(const v1::ListAuditEventsResponse&)>& done) {
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    v1::ListAuditEventsResponse response;
    while (absl::Now() < deadline) {
      response.Clear();
      grpc::Status status = List(token, request, &response);
      EXPECT_TRUE(status.ok()) << status.error_message();
      if (status.ok() && done(response)) return response;
      absl::SleepFor(absl::Milliseconds(100));
    }
    ADD_FAILURE() << "the audit trail did not reach the expected state in 20 s; last page:\n"
                  << response.DebugString() << cluster_.Logs();
    return response;
  }

  std::string Submit(const std::string& token, const std::string& flow) {
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(flow);
    v1::SubmitRunResponse response;
    grpc::Status status = As(token)->SubmitRun(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.run_id();
  }
};

bool WaitingForApproval(const v1::Run& run) {
  for (const v1::Task& task : run.tasks()) {
    if (task.task_id() == "ok" && task.state() == v1::TASK_STATE_RUNNING) return true;
  }
  return false;
}

const v1::AuditEvent* Find(const v1::ListAuditEventsResponse& page, absl::string_view method,
                           absl::string_view actor) {
  for (const v1::AuditEvent& event : page.events()) {
    if (event.method() == method && event.actor() == actor) return &event;
  }
  return nullptr;
}

int Count(const v1::ListAuditEventsResponse& page,
          const std::function<bool(const v1::AuditEvent&)>& predicate) {
  int n = 0;
  for (const v1::AuditEvent& event : page.events()) n += predicate(event) ? 1 : 0;
  return n;
}

TEST_F(AuditTrailTest, CallsOfSeveralTokens_RecordedWithIdentityTargetAndOutcome) {
  // alice (acme): submit and cancel, save a flow, submit and approve.
  const std::string slow = Submit(kAlice, kSlowFlow);
  v1::CancelRunRequest cancel;
  cancel.set_run_id(slow);
  cancel.set_reason("not needed");
  v1::CancelRunResponse cancelled;
  ASSERT_TRUE(As(kAlice)->CancelRun(Context().get(), cancel, &cancelled).ok());
  v1::SaveFlowRequest save;
  save.mutable_source()->set_text(kSlowFlow);
  v1::SaveFlowResponse saved;
  ASSERT_TRUE(As(kAlice)->SaveFlow(Context().get(), save, &saved).ok());
  const std::string release = Submit(kAlice, kRelease);
  ASSERT_THAT(cluster_.WaitUntil(release, WaitingForApproval).status(), IsOk());
  v1::DecideApprovalRequest decide;
  decide.set_run_id(release);
  decide.set_step_id("ok");
  decide.set_decision("approve");
  v1::DecideApprovalResponse decided;
  grpc::Status approved = As(kAlice)->DecideApproval(Context().get(), decide, &decided);
  ASSERT_TRUE(approved.ok()) << approved.error_message();
  // ops (admin) drains the worker once it is connected; bob (globex)
  // cancels a run he cannot see.
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  v1::ListWorkersResponse workers;
  while (workers.workers_size() == 0 && absl::Now() < deadline) {
    workers.Clear();
    ASSERT_TRUE(As(kAdmin)->ListWorkers(Context().get(), {}, &workers).ok());
    if (workers.workers_size() == 0) absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_EQ(workers.workers_size(), 1) << cluster_.Logs();
  v1::DrainWorkerRequest drain;
  drain.set_worker_id("worker-0");
  v1::DrainWorkerResponse drained;
  grpc::Status drain_status = As(kAdmin)->DrainWorker(Context().get(), drain, &drained);
  ASSERT_TRUE(drain_status.ok()) << drain_status.error_message();
  cancel.set_reason("");
  EXPECT_EQ(As(kBob)->CancelRun(Context().get(), cancel, &cancelled).error_code(),
            grpc::StatusCode::NOT_FOUND);

  v1::ListAuditEventsResponse all = ListUntil(
      kAdmin, {}, [](const v1::ListAuditEventsResponse& page) { return page.events_size() >= 7; });
  const v1::AuditEvent* submit = Find(all, "Scheduler.SubmitRun", "alice");
  ASSERT_NE(submit, nullptr) << all.DebugString();
  EXPECT_EQ(submit->tenant(), "acme");
  EXPECT_EQ(submit->role(), "client");
  EXPECT_EQ(submit->outcome(), v1::AUDIT_OUTCOME_OK);
  EXPECT_TRUE(absl::StartsWith(submit->peer(), "ipv4:127.0.0.1:") ||
              absl::StartsWith(submit->peer(), "ipv6:"))
      << submit->peer();
  EXPECT_GT(submit->time().seconds(), 0);
  EXPECT_EQ(Count(all,
                  [&](const v1::AuditEvent& event) {
                    return event.method() == "Scheduler.SubmitRun" &&
                           (event.target() == slow || event.target() == release);
                  }),
            2);
  const v1::AuditEvent* cancel_event = Find(all, "Scheduler.CancelRun", "alice");
  ASSERT_NE(cancel_event, nullptr);
  EXPECT_EQ(cancel_event->target(), slow);
  EXPECT_EQ(cancel_event->detail(), "reason=not needed");
  const v1::AuditEvent* save_event = Find(all, "Scheduler.SaveFlow", "alice");
  ASSERT_NE(save_event, nullptr);
  EXPECT_EQ(save_event->target(), "slow@v1");
  const v1::AuditEvent* approval = Find(all, "Scheduler.DecideApproval", "alice");
  ASSERT_NE(approval, nullptr);
  EXPECT_EQ(approval->target(), release + "/ok");
  EXPECT_EQ(approval->detail(), "decision=approve");
  EXPECT_EQ(approval->outcome(), v1::AUDIT_OUTCOME_OK);
  const v1::AuditEvent* drain_event = Find(all, "Scheduler.DrainWorker", "ops");
  ASSERT_NE(drain_event, nullptr);
  EXPECT_EQ(drain_event->role(), "admin");
  EXPECT_EQ(drain_event->target(), "worker-0");
  const v1::AuditEvent* bob = Find(all, "Scheduler.CancelRun", "bob");
  ASSERT_NE(bob, nullptr);
  EXPECT_EQ(bob->tenant(), "globex");
  EXPECT_EQ(bob->outcome(), v1::AUDIT_OUTCOME_ERROR);
  EXPECT_EQ(bob->code(), "NOT_FOUND");
  EXPECT_THAT(bob->message(), HasSubstr(slow));

  // Each tenant sees its own records only, and may not name another tenant.
  v1::ListAuditEventsResponse acme;
  ASSERT_TRUE(List(kAlice, {}, &acme).ok());
  EXPECT_EQ(Count(acme,
                  [](const v1::AuditEvent& event) {
                    return event.outcome() != v1::AUDIT_OUTCOME_REFUSED;
                  }),
            5)
      << acme.DebugString();
  EXPECT_EQ(Count(acme, [](const v1::AuditEvent& event) { return event.tenant() != "acme"; }), 0);
  v1::ListAuditEventsResponse globex;
  ASSERT_TRUE(List(kBob, {}, &globex).ok());
  ASSERT_EQ(globex.events_size(), 1);
  EXPECT_EQ(globex.events(0).actor(), "bob");
  v1::ListAuditEventsRequest other;
  other.set_tenant("globex");
  v1::ListAuditEventsResponse refused;
  EXPECT_EQ(List(kAlice, other, &refused).error_code(), grpc::StatusCode::PERMISSION_DENIED);

  // Filters, and pages that follow each other.
  v1::ListAuditEventsRequest filtered;
  filtered.set_actor("alice");
  filtered.set_method("CancelRun");
  v1::ListAuditEventsResponse cancels;
  ASSERT_TRUE(List(kAdmin, filtered, &cancels).ok());
  ASSERT_EQ(cancels.events_size(), 1);
  EXPECT_EQ(cancels.events(0).target(), slow);
  v1::ListAuditEventsRequest paged;
  paged.set_page_size(3);
  v1::ListAuditEventsResponse first;
  ASSERT_TRUE(List(kAdmin, paged, &first).ok());
  ASSERT_EQ(first.events_size(), 3);
  ASSERT_FALSE(first.next_page_token().empty());
  paged.set_page_token(first.next_page_token());
  v1::ListAuditEventsResponse second;
  ASSERT_TRUE(List(kAdmin, paged, &second).ok());
  ASSERT_GE(second.events_size(), 1);
  EXPECT_EQ(second.events(0).id(), all.events(3).id());

  // The CLI shows the same trail, as a table and as JSON.
  testing::Exited table = testing::RunToExit(
      "taskboard", {"audit", "--scheduler", cluster_.address(), "--actor", "alice"},
      {{"TASKBOARD_TOKEN", kAdmin}});
  ASSERT_EQ(table.code, 0) << table.output;
  EXPECT_THAT(table.output, HasSubstr("Scheduler.DecideApproval"));
  EXPECT_THAT(table.output, HasSubstr("slow@v1"));
  EXPECT_THAT(table.output, ::testing::Not(HasSubstr("Scheduler.DrainWorker")));
  testing::Exited json = testing::RunToExit(
      "taskboard",
      {"audit", "--scheduler", cluster_.address(), "--json", "--method", "DrainWorker"},
      {{"TASKBOARD_TOKEN", kAdmin}});
  ASSERT_EQ(json.code, 0) << json.output;
  EXPECT_THAT(json.output, HasSubstr("\"target\": \"worker-0\""));
}

TEST_F(AuditTrailTest, RefusedCalls_RecordedAsRefused_AFloodIsBounded) {
  // A worker's token may not submit: refused, naming the token.
  v1::SubmitRunRequest submit;
  submit.mutable_source()->set_text(kSlowFlow);
  v1::SubmitRunResponse submitted;
  ASSERT_EQ(As(kWorker)->SubmitRun(Context().get(), submit, &submitted).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  // A flood without a token, from one address.
  const absl::Time flood_start = absl::Now();
  constexpr int kFlood = 300;
  for (int i = 0; i < kFlood; ++i) {
    v1::CancelRunRequest cancel;
    cancel.set_run_id("run-x");
    v1::CancelRunResponse cancelled;
    ASSERT_EQ(As("")->CancelRun(Context().get(), cancel, &cancelled).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  const double flood_seconds = absl::ToDoubleSeconds(absl::Now() - flood_start);

  v1::ListAuditEventsRequest request;
  request.set_page_size(1000);
  v1::ListAuditEventsResponse page =
      ListUntil(kAdmin, request, [](const v1::ListAuditEventsResponse& page) {
        return Count(page,
                     [](const v1::AuditEvent& event) {
                       return event.code() == "UNAUTHENTICATED";
                     }) >= kRefusedBurst &&
               Find(page, "Scheduler.SubmitRun", "pool") != nullptr;
      });
  const v1::AuditEvent* worker = Find(page, "Scheduler.SubmitRun", "pool");
  ASSERT_NE(worker, nullptr);
  EXPECT_EQ(worker->outcome(), v1::AUDIT_OUTCOME_REFUSED);
  EXPECT_EQ(worker->role(), "worker");
  EXPECT_EQ(worker->code(), "PERMISSION_DENIED");
  EXPECT_THAT(worker->message(), HasSubstr("needs role client or admin"));
  const int unauthenticated = Count(page, [](const v1::AuditEvent& event) {
    return event.code() == "UNAUTHENTICATED" && event.outcome() == v1::AUDIT_OUTCOME_REFUSED &&
           event.method() == "Scheduler.CancelRun" && event.actor().empty();
  });
  // The burst, plus one a second while the flood lasted.
  EXPECT_GE(unauthenticated, kRefusedBurst);
  EXPECT_LE(unauthenticated, kRefusedBurst + static_cast<int>(flood_seconds) + 2)
      << "of " << kFlood << " refusals in " << flood_seconds << " s";
  // Refusals without a token belong to no tenant: a client sees none.
  v1::ListAuditEventsResponse acme;
  ASSERT_TRUE(List(kAlice, {}, &acme).ok());
  EXPECT_EQ(Count(acme,
                  [](const v1::AuditEvent& event) {
                    return event.outcome() == v1::AUDIT_OUTCOME_REFUSED;
                  }),
            0);
}

TEST_F(AuditTrailTest, HttpApiCalls_RecordedWithTheHttpClientsAddress) {
  int port = 0;
  std::ifstream(HttpPortFile()) >> port;
  ASSERT_GT(port, 0) << cluster_.Logs();
  httplib::Client http("127.0.0.1", port);
  http.set_read_timeout(20, 0);
  httplib::Result deleted =
      http.Post("/api/v1/DeleteFlow", {{"Authorization", absl::StrCat("Bearer ", kAlice)}},
                R"({"name": "never-saved"})", "application/json");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 404) << deleted->body;
  // A gRPC client that claims an HTTP address is not believed.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  context.AddMetadata("taskboard-http-peer", "10.9.9.9");
  v1::DeleteFlowRequest request;
  request.set_name("never-saved-either");
  v1::DeleteFlowResponse response;
  EXPECT_EQ(As(kAlice)->DeleteFlow(&context, request, &response).error_code(),
            grpc::StatusCode::NOT_FOUND);

  v1::ListAuditEventsRequest list;
  list.set_method("DeleteFlow");
  v1::ListAuditEventsResponse page =
      ListUntil(kAlice, list,
                [](const v1::ListAuditEventsResponse& page) { return page.events_size() == 2; });
  ASSERT_EQ(page.events_size(), 2);
  EXPECT_EQ(page.events(1).target(), "never-saved");
  EXPECT_EQ(page.events(1).peer(), "http:127.0.0.1");
  EXPECT_EQ(page.events(1).actor(), "alice");
  EXPECT_EQ(page.events(1).code(), "NOT_FOUND");
  EXPECT_EQ(page.events(0).target(), "never-saved-either");
  EXPECT_THAT(page.events(0).peer(), ::testing::Not(HasSubstr("10.9.9.9")));
}

TEST_F(AuditTrailTest, Records_SurviveASchedulerKill) {
  const std::string run_id = Submit(kAlice, kSlowFlow);
  v1::ListAuditEventsRequest request;
  request.set_target(run_id);
  v1::ListAuditEventsResponse before =
      ListUntil(kAdmin, request,
                [](const v1::ListAuditEventsResponse& page) { return page.events_size() == 1; });
  cluster_.KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());
  v1::ListAuditEventsResponse after =
      ListUntil(kAdmin, request,
                [](const v1::ListAuditEventsResponse& page) { return page.events_size() == 1; });
  ASSERT_EQ(after.events_size(), 1);
  EXPECT_EQ(after.events(0).id(), before.events(0).id());
  EXPECT_EQ(after.events(0).actor(), "alice");
}

class AuditRetentionTest : public AuditTrailTest {
 protected:
  AuditRetentionTest() : AuditTrailTest(Audited({"--audit-retention", "3s"})) {}
};

TEST_F(AuditRetentionTest, RecordsPastRetention_AreSwept) {
  const std::string run_id = Submit(kAlice, kSlowFlow);
  v1::ListAuditEventsRequest request;
  request.set_target(run_id);
  ListUntil(kAdmin, request,
            [](const v1::ListAuditEventsResponse& page) { return page.events_size() == 1; });
  // Gone within the retention plus a sweep interval (a tenth of it, at
  // least a second).
  ListUntil(kAdmin, request,
            [](const v1::ListAuditEventsResponse& page) { return page.events_size() == 0; });
}

}  // namespace
}  // namespace taskboard
