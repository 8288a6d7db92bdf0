// The event triggers on the engine's loop, on a fake clock
// (docs/schedules.md#event-triggers): signatures and tokens, filters, args
// from the payload, dedupe through the run idempotency key (also after a
// reload), the per-trigger and per-tenant rates with the time to wait, and
// the bound on the runs one event starts.

#include <optional>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/triggers/trigger_run_source.h"
#include "scheduler/engine/triggers/triggers.h"
#include "scheduler/triggers/hub_signature.h"
#include "scheduler/triggers/retry_after.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kFlow[] = R"({"name": "review", "phases": [
    {"id": "a", "agent": "coder", "task": "review {args.pr}"}],
    "args": {"pr": {"required": true}}})";
constexpr char kSecret[] = "0123456789abcdef0123456789abcdef";

// Hands out kFlow with the delivery's args, as the server's intake would;
// `missing_flow` answers as if the saved flow did not exist.
class FakeTriggerRuns final : public TriggerRunSource {
 public:
  absl::Status CheckFlow(const std::string&, const std::string& flow,
                         std::optional<int64_t>) override {
    if (missing_flow) return absl::NotFoundError(absl::StrCat("saved flow '", flow, "' not found"));
    return absl::OkStatus();
  }
  absl::StatusOr<SubmitRequest> Prepare(const std::string& tenant, const TriggerRun& run,
                                        const std::string& idempotency_key) override {
    SubmitRequest request;
    request.spec = taskboard::testing::LoadValidFlow(kFlow);
    request.args = run.args;
    request.labels = run.labels;
    request.labels["trigger"] = run.trigger;
    request.tenant = tenant;
    request.idempotency_key =
        idempotency_key.empty() ? "" : absl::StrCat(tenant, "/", idempotency_key);
    return request;
  }
  bool missing_flow = false;
};

std::string GitHubTrigger(const std::string& extra = "") {
  return absl::StrCat(R"(name: pr
event: github
flow: review
filter: [{path: $.action, equals: opened}]
args: {pr: $.pull_request.number}
auth: {hmacSecret: )",
                      kSecret, R"(}
dedupe: {header: X-GitHub-Delivery}
)",
                      extra);
}

class TriggersEngineTest : public ::testing::Test {
 protected:
  TriggersEngineTest() : h(Options(&runs, 2)) {}

  static EngineOptions Options(TriggerRunSource* source, int64_t max_runs_per_event) {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.trigger_runs = source;
    options.triggers_max_runs_per_event = max_runs_per_event;
    options.triggers_tenant_per_minute = 60;
    options.triggers_tenant_burst = 5;
    options.scheduling_timeout_ms = int64_t{1} << 40;
    return options;
  }

  template <typename Answer>
  Answer Call(std::function<Answer(Triggers&)> work) {
    std::optional<Answer> answer;
    h.engine().OnComponent<Triggers, Answer>(std::move(work),
                                             [&](Answer a) { answer = std::move(a); });
    h.RunOnce();
    EXPECT_TRUE(answer.has_value()) << "no answer within one batch";
    return std::move(answer).value();
  }
  absl::StatusOr<v1::Trigger> Create(const std::string& source,
                                     const std::string& tenant = "acme") {
    return Call<absl::StatusOr<v1::Trigger>>([&](Triggers& t) { return t.Create(tenant, source); });
  }
  absl::StatusOr<v1::PublishEventResponse> Publish(std::optional<std::string> tenant,
                                                   const std::string& event_name,
                                                   const Json& payload,
                                                   std::map<std::string, std::string> headers) {
    triggers::Event event;
    event.name = event_name;
    event.payload = payload;
    event.headers = std::move(headers);
    const std::string body = DumpJson(payload);
    return Call<absl::StatusOr<v1::PublishEventResponse>>(
        [&](Triggers& t) { return t.Publish({tenant}, event, body); });
  }
  // A signed GitHub pull request delivery, no token.
  absl::StatusOr<v1::PublishEventResponse> PullRequest(const std::string& delivery,
                                                       const std::string& action, int number,
                                                       const std::string& secret = kSecret) {
    const Json payload = {{"action", action}, {"pull_request", {{"number", number}}}};
    return Publish(std::nullopt, "github", payload,
                   {{"x-github-delivery", delivery},
                    {"x-hub-signature-256", triggers::HubSignature(secret, DumpJson(payload))}});
  }
  std::string OutcomeOf(const absl::StatusOr<v1::PublishEventResponse>& response, int i = 0) {
    if (!response.ok() || response->outcomes_size() <= i) return "none";
    return response->outcomes(i).delivery().outcome();
  }

  FakeTriggerRuns runs;  // before h: the engine uses it until it is gone
  EngineHarness h;
};

TEST_F(TriggersEngineTest, SignedEvent_StartsRunWithArgsFromThePayload) {
  ASSERT_TRUE(Create(GitHubTrigger()).ok());
  absl::StatusOr<v1::PublishEventResponse> published = PullRequest("d-1", "opened", 42);
  ASSERT_TRUE(published.ok()) << published.status();
  ASSERT_EQ(OutcomeOf(published), "accepted");
  EXPECT_EQ(published->started(), 1);
  EXPECT_THAT(published->outcomes(0).delivery().run_id(), ::testing::StartsWith("run-"));
  EXPECT_EQ(published->outcomes(0).delivery().run_status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(published->outcomes(0).delivery().dedupe(), "d-1");
}

TEST_F(TriggersEngineTest, Redelivery_FindsTheFirstRun_AlsoAfterAReload) {
  ASSERT_TRUE(Create(GitHubTrigger()).ok());
  absl::StatusOr<v1::PublishEventResponse> first = PullRequest("d-1", "opened", 42);
  ASSERT_EQ(OutcomeOf(first), "accepted");
  absl::StatusOr<v1::PublishEventResponse> again = PullRequest("d-1", "opened", 42);
  EXPECT_EQ(OutcomeOf(again), "deduped");
  EXPECT_EQ(again->outcomes(0).delivery().run_id(), first->outcomes(0).delivery().run_id());
  EXPECT_EQ(again->started(), 0);

  h.Restart();
  absl::StatusOr<v1::PublishEventResponse> after = PullRequest("d-1", "opened", 42);
  EXPECT_EQ(OutcomeOf(after), "deduped");
  absl::StatusOr<v1::Trigger> trigger =
      Call<absl::StatusOr<v1::Trigger>>([](Triggers& t) { return t.Get("acme", "pr"); });
  ASSERT_TRUE(trigger.ok());
  EXPECT_EQ(trigger->accepted(), 1);
  EXPECT_EQ(trigger->deduped(), 2);
  EXPECT_EQ(trigger->recent_deliveries_size(), 3);
}

TEST_F(TriggersEngineTest, BadSignature_IsUnauthenticated_AndRecorded) {
  ASSERT_TRUE(Create(GitHubTrigger()).ok());
  absl::StatusOr<v1::PublishEventResponse> forged =
      PullRequest("d-1", "opened", 42, "another-secret-0123456789abcdef");
  EXPECT_EQ(forged.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(forged.status().message(), HasSubstr("does not match"));
  // Unsigned and without a token: the same.
  EXPECT_EQ(Publish(std::nullopt, "github", {{"action", "opened"}}, {}).status().code(),
            absl::StatusCode::kUnauthenticated);
  absl::StatusOr<std::vector<v1::TriggerDelivery>> deliveries =
      Call<absl::StatusOr<std::vector<v1::TriggerDelivery>>>(
          [](Triggers& t) { return t.Deliveries("acme", "pr"); });
  ASSERT_TRUE(deliveries.ok());
  ASSERT_EQ(deliveries->size(), 2u);
  EXPECT_EQ((*deliveries)[0].outcome(), "refused");
  EXPECT_THAT((*deliveries)[0].reason(), HasSubstr("no X-Hub-Signature-256"));
  EXPECT_THAT((*deliveries)[1].reason(), HasSubstr("does not match"));
}

TEST_F(TriggersEngineTest, Filter_And_MissingArg_StartNothingAndSayWhy) {
  ASSERT_TRUE(Create(GitHubTrigger()).ok());
  absl::StatusOr<v1::PublishEventResponse> closed = PullRequest("d-1", "closed", 42);
  EXPECT_EQ(OutcomeOf(closed), "filtered");
  EXPECT_THAT(closed->outcomes(0).delivery().reason(), HasSubstr("\"closed\""));
  const Json no_number = {{"action", "opened"}, {"pull_request", Json::object()}};
  absl::StatusOr<v1::PublishEventResponse> refused =
      Publish(std::nullopt, "github", no_number,
              {{"x-github-delivery", "d-2"},
               {"x-hub-signature-256", triggers::HubSignature(kSecret, DumpJson(no_number))}});
  EXPECT_EQ(OutcomeOf(refused), "refused");
  EXPECT_THAT(refused->outcomes(0).delivery().reason(), HasSubstr("$.pull_request.number"));
}

TEST_F(TriggersEngineTest, TriggerRate_RefusesWithRetryAfter_ThenRefills) {
  ASSERT_TRUE(Create("--- {name: t, event: e, flow: review, args: {pr: $.n}, "
                     "rate: {perMinute: 6, burst: 1}}")
                  .ok());
  EXPECT_EQ(OutcomeOf(Publish("acme", "e", {{"n", 1}}, {})), "accepted");
  absl::StatusOr<v1::PublishEventResponse> limited = Publish("acme", "e", {{"n", 2}}, {});
  ASSERT_EQ(limited.status().code(), absl::StatusCode::kResourceExhausted);
  auto retry = limited.status().GetPayload(triggers::kRetryAfterPayloadUrl);
  ASSERT_TRUE(retry.has_value());
  v1::RetryAfter after;
  ASSERT_TRUE(after.ParseFromString(std::string(*retry)));
  EXPECT_EQ(after.seconds(), 10);
  h.Advance(10'000);
  EXPECT_EQ(OutcomeOf(Publish("acme", "e", {{"n", 3}}, {})), "accepted");
}

TEST_F(TriggersEngineTest, TenantRate_BoundsAllItsTriggers) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Create(absl::StrCat("--- {name: t", i, ", event: e", i,
                                    ", flow: review, args: {pr: 1}, rate: {perMinute: 600, "
                                    "burst: 100}}"))
                    .ok());
  }
  int accepted = 0;
  for (int i = 0; i < 9; ++i) {
    if (OutcomeOf(Publish("acme", absl::StrCat("e", i % 3), Json::object(), {})) == "accepted") {
      ++accepted;
    }
  }
  EXPECT_EQ(accepted, 5);  // the tenant's burst
  // Another tenant has its own bucket.
  ASSERT_TRUE(Create("--- {name: t, event: e, flow: review, args: {pr: 1}}", "globex").ok());
  EXPECT_EQ(OutcomeOf(Publish("globex", "e", Json::object(), {})), "accepted");
}

TEST_F(TriggersEngineTest, OneEvent_StartsAtMostMaxRunsPerEvent) {
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(
        Create(absl::StrCat("--- {name: t", i, ", event: e, flow: review, args: {pr: 1}}")).ok());
  }
  absl::StatusOr<v1::PublishEventResponse> published = Publish("acme", "e", Json::object(), {});
  ASSERT_TRUE(published.ok()) << published.status();
  EXPECT_EQ(published->started(), 2);
  EXPECT_EQ(OutcomeOf(published, 2), "refused");
  EXPECT_THAT(published->outcomes(2).delivery().reason(),
              HasSubstr("--triggers-max-runs-per-event"));
}

TEST_F(TriggersEngineTest, OtherTenant_NeitherSeesNorReaches) {
  ASSERT_TRUE(Create("--- {name: t, event: e, flow: review, args: {pr: 1}}").ok());
  EXPECT_EQ(Publish("globex", "e", Json::object(), {}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Call<absl::StatusOr<v1::Trigger>>([](Triggers& t) { return t.Get("globex", "t"); })
                .status()
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(Call<absl::Status>([](Triggers& t) { return t.Delete("globex", "t"); }).code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(Call<std::vector<v1::Trigger>>([](Triggers& t) { return t.List("globex"); }).empty());
}

TEST_F(TriggersEngineTest, Create_UnknownFlowOrNameInUse_IsRefused) {
  runs.missing_flow = true;
  EXPECT_EQ(Create("--- {name: t, event: e, flow: nope}").status().code(),
            absl::StatusCode::kNotFound);
  runs.missing_flow = false;
  ASSERT_TRUE(Create("--- {name: t, event: e, flow: review}").ok());
  EXPECT_EQ(Create("--- {name: t, event: e, flow: review}").status().code(),
            absl::StatusCode::kAlreadyExists);
}

}  // namespace
}  // namespace taskboard::engine::testing
