#include "scheduler/triggers/trigger_decoder.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::triggers {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kGitHub[] = R"(
name: pr-review
event: github
filter:
  - {header: X-GitHub-Event, equals: pull_request}
  - {path: $.action, equals: opened}
flow: review-pr
flowVersion: 2
args:
  pr: $.pull_request.number
  mode: review
labels: {team: infra}
auth: {hmacSecret: 0123456789abcdef0123}
dedupe: {header: X-GitHub-Delivery}
rate: {perMinute: 30, burst: 5}
)";

TEST(TriggerDecoderTest, Load_FullFile_EveryField) {
  absl::StatusOr<TriggerDefinition> trigger = LoadTriggerText(kGitHub);
  ASSERT_TRUE(trigger.ok()) << trigger.status();
  EXPECT_EQ(trigger->name, "pr-review");
  EXPECT_EQ(trigger->event, "github");
  ASSERT_EQ(trigger->filter.size(), 2u);
  EXPECT_EQ(trigger->filter[0].header, "X-GitHub-Event");
  EXPECT_EQ(trigger->filter[1].path->text(), "$.action");
  EXPECT_EQ(trigger->flow, "review-pr");
  EXPECT_EQ(trigger->flow_version, 2);
  ASSERT_EQ(trigger->args.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<JsonPath>(trigger->args[0].from));
  EXPECT_EQ(std::get<Json>(trigger->args[1].from), "review");
  EXPECT_EQ(trigger->labels.at("team"), "infra");
  EXPECT_EQ(trigger->auth.hmac_secret, "0123456789abcdef0123");
  EXPECT_FALSE(trigger->auth.bearer);  // a secret: signatures only, unless said
  EXPECT_EQ(trigger->dedupe.header, "X-GitHub-Delivery");
  EXPECT_EQ(trigger->rate.per_minute, 30);
  EXPECT_EQ(trigger->rate.burst, 5);
}

TEST(TriggerDecoderTest, Load_Minimal_BearerAndDefaultRate) {
  absl::StatusOr<TriggerDefinition> trigger = LoadTriggerText("--- {name: t, event: e, flow: f}");
  ASSERT_TRUE(trigger.ok()) << trigger.status();
  EXPECT_TRUE(trigger->auth.bearer);
  EXPECT_FALSE(trigger->dedupe.enabled());
  EXPECT_EQ(trigger->rate.per_minute, 60);
}

TEST(TriggerDecoderTest, Load_Problems_AllReportedWithPaths) {
  EXPECT_THAT(
      LoadTriggerText(R"(
name: "bad name!"
event: github
flow: f
filter: [{path: "$.a[*]", equals: 1}, {header: X, path: $.b, equals: 1}]
args: {pr: "$.x["}
auth: {hmacSecret: short, bearer: false}
dedupe: {}
rate: {perMinute: 0}
extra: 1
)"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("name: trigger name 'bad name!'"), HasSubstr("filter[0].path"),
                     HasSubstr("filter[1]: give one of"), HasSubstr("args.pr"),
                     HasSubstr("auth.hmacSecret"), HasSubstr("dedupe: give one of"),
                     HasSubstr("rate.perMinute"), HasSubstr("extra"))));
}

TEST(TriggerDecoderTest, Load_NoWayToPublish_IsRefused) {
  EXPECT_THAT(LoadTriggerText("--- {name: t, event: e, flow: f, auth: {bearer: false}}"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("give hmacSecret")));
}

}  // namespace
}  // namespace taskboard::triggers
