// Event triggers with real processes (docs/schedules.md#event-triggers): a
// scheduler with tokens and its HTTP port, one worker. A GitHub-style signed
// event starts a run that completes; a bad signature is refused with 401 and
// starts nothing; a redelivery (same X-GitHub-Delivery) starts nothing new;
// a flood is refused with 429 and Retry-After while a submitted run still
// completes; and another tenant's token can neither see, fire nor delete a
// tenant's triggers and schedules.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "scheduler/triggers/hub_signature.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

constexpr char kAcme[] = "events-acme-token-0123456789";
constexpr char kGlobex[] = "events-globex-token-0123456789";
constexpr char kWorker[] = "events-worker-token-0123456789";
constexpr char kTokens[] = R"(tokens:
  - {token: events-acme-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: events-globex-token-0123456789, name: bob, role: client, tenant: globex}
  - {token: events-worker-token-0123456789, name: pool, role: worker}
)";
constexpr char kSecret[] = "a-webhook-secret-of-32-characters";

constexpr char kReviewFlow[] = R"(
name: review-pr
args:
  pr: {required: true}
phases:
  - {id: a, agent: echo, task: "echo reviewing {args.pr}"}
)";

constexpr char kGitHubTrigger[] = R"(
name: pr-opened
event: github
filter:
  - {header: X-GitHub-Event, equals: pull_request}
  - {path: $.action, equals: opened}
flow: review-pr
args: {pr: $.pull_request.number}
auth: {hmacSecret: a-webhook-secret-of-32-characters}
dedupe: {header: X-GitHub-Delivery}
)";

constexpr char kFloodTrigger[] = R"(
name: alerts
event: alert
flow: review-pr
args: {pr: $.id}
rate: {perMinute: 6, burst: 2}
)";

constexpr char kSchedule[] = R"(name: nightly
flow: review-pr
args: {pr: 1}
spec: {cron: "0 2 * * *"}
)";

struct Reply {
  int status = 0;
  std::string retry_after;
  nlohmann::json body;
  std::string text;
};

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

class TriggerEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(files_.path() / "tokens.yaml") << kTokens;
    ASSERT_THAT(cluster_.Start(), IsOk());
    int port = 0;
    std::ifstream(files_.path() / "http.port") >> port;
    ASSERT_GT(port, 0) << "the scheduler wrote no HTTP port\n" << cluster_.Logs();
    port_ = port;
    v1::SaveFlowRequest save;
    save.mutable_source()->set_text(kReviewFlow);
    v1::SaveFlowResponse saved;
    grpc::Status status = As(kAcme)->SaveFlow(Context().get(), save, &saved);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  testing::ClusterOptions Options() const {
    testing::ClusterOptions options;
    options.workers = 1;
    options.scheduler_flags = {"--auth-tokens",    (files_.path() / "tokens.yaml").string(),
                               "--http-listen",    "127.0.0.1:0",
                               "--http-port-file", (files_.path() / "http.port").string()};
    options.worker_flags = {"--token", kWorker};
    options.client_token = kAcme;
    return options;
  }

  std::unique_ptr<v1::Scheduler::Stub> As(const std::string& token) {
    return v1::Scheduler::NewStub(testing::TestChannel(cluster_.address(), token));
  }

  grpc::Status CreateTrigger(const std::string& token, const std::string& source) {
    v1::CreateTriggerRequest request;
    request.set_source(source);
    v1::CreateTriggerResponse response;
    return As(token)->CreateTrigger(Context().get(), request, &response);
  }

  Reply PostEvent(const std::string& event, const std::string& body, httplib::Headers headers) {
    httplib::Client client("127.0.0.1", port_);
    client.set_read_timeout(30, 0);
    httplib::Result result =
        client.Post(absl::StrCat("/api/v1/events/", event), headers, body, "application/json");
    Reply reply;
    if (!result) {
      ADD_FAILURE() << "POST " << event << ": " << httplib::to_string(result.error());
      return reply;
    }
    reply.status = result->status;
    reply.retry_after = result->get_header_value("Retry-After");
    reply.text = result->body;
    reply.body = nlohmann::json::parse(result->body, nullptr, false);
    return reply;
  }

  // A pull request event as GitHub sends it, signed with `secret`.
  Reply PostGitHub(const std::string& delivery, const std::string& action, int number,
                   const std::string& secret) {
    const std::string body =
        nlohmann::json{{"action", action}, {"pull_request", {{"number", number}}}}.dump();
    return PostEvent("github", body,
                     {{"X-GitHub-Event", "pull_request"},
                      {"X-GitHub-Delivery", delivery},
                      {"X-Hub-Signature-256", triggers::HubSignature(secret, body)}});
  }

  v1::Trigger GetTrigger(const std::string& name) {
    v1::GetTriggerRequest request;
    request.set_name(name);
    v1::GetTriggerResponse response;
    grpc::Status status = As(kAcme)->GetTrigger(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.trigger();
  }

  testing::TempDir files_;
  testing::Cluster cluster_{Options()};
  int port_ = 0;
};

TEST_F(TriggerEventsTest, SignedEvent_RunCompletes_RedeliveryAndForgeryStartNothing) {
  ASSERT_TRUE(CreateTrigger(kAcme, kGitHubTrigger).ok());

  // No token: the signature alone admits it.
  Reply accepted = PostGitHub("delivery-1", "opened", 42, kSecret);
  ASSERT_EQ(accepted.status, 200) << accepted.text << cluster_.Logs();
  ASSERT_EQ(accepted.body["outcomes"].size(), 1u) << accepted.text;
  const nlohmann::json& delivery = accepted.body["outcomes"][0]["delivery"];
  EXPECT_EQ(delivery.value("outcome", ""), "accepted") << accepted.text;
  const std::string run_id = delivery.value("runId", "");
  ASSERT_FALSE(run_id.empty()) << accepted.text;
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();
  EXPECT_EQ(run->output(), "reviewing 42\n");
  EXPECT_EQ(run->labels().at("trigger"), "pr-opened");

  // GitHub redelivers: the same run, nothing new.
  Reply again = PostGitHub("delivery-1", "opened", 42, kSecret);
  ASSERT_EQ(again.status, 200) << again.text;
  EXPECT_EQ(again.body["outcomes"][0]["delivery"].value("outcome", ""), "deduped");
  EXPECT_EQ(again.body["outcomes"][0]["delivery"].value("runId", ""), run_id);
  EXPECT_EQ(again.body.value("started", "0"), "0");

  // A wrong secret: 401, nothing started.
  Reply forged = PostGitHub("delivery-2", "opened", 43, "not-the-secret-at-all-0123456789");
  EXPECT_EQ(forged.status, 401) << forged.text;
  EXPECT_THAT(forged.text, HasSubstr("does not match"));

  // A closed pull request is filtered out: 200, no run.
  Reply closed = PostGitHub("delivery-3", "closed", 44, kSecret);
  ASSERT_EQ(closed.status, 200) << closed.text;
  EXPECT_EQ(closed.body["outcomes"][0]["delivery"].value("outcome", ""), "filtered");

  v1::Trigger trigger = GetTrigger("pr-opened");
  EXPECT_EQ(trigger.accepted(), 1);
  EXPECT_EQ(trigger.deduped(), 1);
  EXPECT_EQ(trigger.refused(), 1);
  EXPECT_EQ(trigger.filtered(), 1);
  EXPECT_THAT(trigger.source(), HasSubstr("<redacted>"));
  EXPECT_THAT(trigger.source(), ::testing::Not(HasSubstr(kSecret)));

  // Exactly one run carries the trigger's label.
  v1::ListRunsRequest list;
  v1::ListRunsResponse runs;
  ASSERT_TRUE(As(kAcme)->ListRuns(Context().get(), list, &runs).ok());
  int triggered = 0;
  for (const v1::Run& listed : runs.runs()) {
    if (listed.labels().contains("trigger")) ++triggered;
  }
  EXPECT_EQ(triggered, 1);
}

TEST_F(TriggerEventsTest, Flood_IsRateLimitedWith429_WhileASubmittedRunCompletes) {
  ASSERT_TRUE(CreateTrigger(kAcme, kFloodTrigger).ok());
  int accepted = 0;
  int limited = 0;
  std::string retry_after;
  for (int i = 0; i < 12; ++i) {
    Reply reply = PostEvent("alert", nlohmann::json{{"id", i}}.dump(),
                            {{"Authorization", absl::StrCat("Bearer ", kAcme)}});
    if (reply.status == 200) ++accepted;
    if (reply.status == 429) {
      ++limited;
      retry_after = reply.retry_after;
      EXPECT_THAT(reply.text, HasSubstr("rate")) << reply.text;
    }
  }
  // A burst of 2 at 6 a minute: a few may pass, the rest are refused.
  EXPECT_GE(accepted, 2);
  EXPECT_LE(accepted, 3);
  EXPECT_GE(limited, 9);
  EXPECT_FALSE(retry_after.empty());
  EXPECT_GE(std::atoi(retry_after.c_str()), 1);

  absl::StatusOr<std::string> run_id = cluster_.Submit(
      "--- {name: normal, phases: [{id: a, agent: echo, task: 'echo still here'}]}");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();

  v1::ListTriggerDeliveriesRequest request;
  request.set_name("alerts");
  v1::ListTriggerDeliveriesResponse deliveries;
  ASSERT_TRUE(As(kAcme)->ListTriggerDeliveries(Context().get(), request, &deliveries).ok());
  ASSERT_EQ(deliveries.deliveries_size(), 12);
  EXPECT_EQ(deliveries.deliveries(0).outcome(), "refused");
  EXPECT_GT(deliveries.deliveries(0).retry_after_seconds(), 0);
}

TEST_F(TriggerEventsTest, OtherTenant_CannotSeeFireOrDeleteTriggersAndSchedules) {
  ASSERT_TRUE(CreateTrigger(kAcme, kFloodTrigger).ok());
  {
    v1::CreateScheduleRequest request;
    request.set_source(kSchedule);
    v1::CreateScheduleResponse response;
    grpc::Status status = As(kAcme)->CreateSchedule(Context().get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  auto globex = As(kGlobex);
  {
    v1::ListTriggersResponse response;
    ASSERT_TRUE(globex->ListTriggers(Context().get(), {}, &response).ok());
    EXPECT_EQ(response.triggers_size(), 0);
    v1::GetTriggerRequest get;
    get.set_name("alerts");
    v1::GetTriggerResponse got;
    EXPECT_EQ(globex->GetTrigger(Context().get(), get, &got).error_code(),
              grpc::StatusCode::NOT_FOUND);
    v1::DeleteTriggerRequest del;
    del.set_name("alerts");
    v1::DeleteTriggerResponse deleted;
    EXPECT_EQ(globex->DeleteTrigger(Context().get(), del, &deleted).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  // Its token reaches only its own (none): 404, and acme's trigger heard nothing.
  Reply fired =
      PostEvent("alert", R"({"id": 1})", {{"Authorization", absl::StrCat("Bearer ", kGlobex)}});
  EXPECT_EQ(fired.status, 404) << fired.text;
  EXPECT_EQ(GetTrigger("alerts").recent_deliveries_size(), 0);
  {
    v1::ListSchedulesResponse response;
    ASSERT_TRUE(globex->ListSchedules(Context().get(), {}, &response).ok());
    EXPECT_EQ(response.schedules_size(), 0);
    v1::DescribeScheduleRequest describe;
    describe.set_name("nightly");
    v1::DescribeScheduleResponse described;
    EXPECT_EQ(globex->DescribeSchedule(Context().get(), describe, &described).error_code(),
              grpc::StatusCode::NOT_FOUND);
    v1::TriggerScheduleRequest trigger;
    trigger.set_name("nightly");
    v1::TriggerScheduleResponse triggered;
    EXPECT_EQ(globex->TriggerSchedule(Context().get(), trigger, &triggered).error_code(),
              grpc::StatusCode::NOT_FOUND);
    v1::DeleteScheduleRequest del;
    del.set_name("nightly");
    v1::DeleteScheduleResponse deleted;
    EXPECT_EQ(globex->DeleteSchedule(Context().get(), del, &deleted).error_code(),
              grpc::StatusCode::NOT_FOUND);
  }
  // The changes are in acme's audit trail, named by what they changed.
  for (const auto& [method, target] :
       {std::pair<std::string, std::string>{"Scheduler.CreateTrigger", "alerts"},
        {"Scheduler.CreateSchedule", "nightly"}}) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool found = false;
    while (!found && std::chrono::steady_clock::now() < deadline) {
      v1::ListAuditEventsRequest audit;
      audit.set_method(method);
      v1::ListAuditEventsResponse events;
      ASSERT_TRUE(As(kAcme)->ListAuditEvents(Context().get(), audit, &events).ok());
      for (const v1::AuditEvent& event : events.events()) {
        if (event.target() == target && event.code() == "OK") found = true;
      }
      if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(found) << method << " " << target << " is not in the audit trail";
  }
  // Still acme's, untouched.
  v1::DescribeScheduleRequest describe;
  describe.set_name("nightly");
  v1::DescribeScheduleResponse described;
  ASSERT_TRUE(As(kAcme)->DescribeSchedule(Context().get(), describe, &described).ok());
  EXPECT_EQ(described.schedule().fires(), 0);
  EXPECT_EQ(GetTrigger("alerts").name(), "alerts");
}

}  // namespace
}  // namespace taskboard
