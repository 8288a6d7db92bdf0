// The approval webhook's JSON body and delivery ids.

#include "scheduler/notify/approval_payload.h"

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::notify {
namespace {

using engine::ApprovalEvent;

Json Body(const std::string& text) {
  absl::StatusOr<Json> parsed = ParseJson(text);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : Json();
}

ApprovalEvent Waiting() {
  ApprovalEvent event;
  event.kind = ApprovalEvent::Kind::kWaiting;
  event.run_id = "run-1";
  event.step_id = "ok";
  event.flow_name = "release";
  event.tenant = "acme";
  v1::TaskApproval& approval = event.approval;
  approval.set_prompt("Ship v1?");
  approval.add_choices("later");
  v1::ApprovalField& field = *approval.add_form();
  field.set_name("version");
  field.set_description("which one");
  field.set_required(true);
  approval.add_approvers("alice");
  *approval.mutable_waiting_since() = engine::ToTimestamp(1'700'000'000'000);
  approval.set_on_timeout(v1::APPROVAL_ON_TIMEOUT_REJECT);
  return event;
}

ApprovalEvent Decided(const std::string& decision, const std::string& by = "alice") {
  ApprovalEvent event = Waiting();
  event.kind = ApprovalEvent::Kind::kDecided;
  v1::ApprovalDecision& made = *event.approval.mutable_decision();
  made.set_decision(decision);
  (*made.mutable_values())["version"] = "1.2";
  made.set_comment("looks good");
  made.set_decided_by(by);
  *made.mutable_decided_at() = engine::ToTimestamp(1'700'000'060'500);
  return event;
}

TEST(ApprovalPayload, Waiting_HasWhatThePersonIsAsked) {
  Json body = Body(ApprovalPayloadJson(Waiting(), "dlv_1"));
  EXPECT_EQ(body["event"], "approval.waiting");
  EXPECT_EQ(body["delivery_id"], "dlv_1");
  EXPECT_EQ(body["run_id"], "run-1");
  EXPECT_EQ(body["step_id"], "ok");
  EXPECT_EQ(body["flow_name"], "release");
  EXPECT_EQ(body["tenant"], "acme");
  EXPECT_EQ(body["prompt"], "Ship v1?");
  EXPECT_EQ(body["choices"], Json::array({"later"}));
  EXPECT_EQ(body["form"][0]["name"], "version");
  EXPECT_EQ(body["form"][0]["description"], "which one");
  EXPECT_EQ(body["form"][0]["required"], true);
  EXPECT_EQ(body["approvers"], Json::array({"alice"}));
  EXPECT_EQ(body["waiting_since"], "2023-11-14T22:13:20.000Z");
  EXPECT_TRUE(body["deadline"].is_null());
  EXPECT_EQ(body["on_timeout"], "reject");
  EXPECT_FALSE(body.contains("decision"));
}

TEST(ApprovalPayload, Deadline_Rfc3339) {
  ApprovalEvent event = Waiting();
  *event.approval.mutable_deadline() = engine::ToTimestamp(1'700'003'600'000);
  EXPECT_EQ(Body(ApprovalPayloadJson(event, "d"))["deadline"], "2023-11-14T23:13:20.000Z");
}

TEST(ApprovalPayload, Decided_HasTheDecision) {
  Json body = Body(ApprovalPayloadJson(Decided("approve"), "dlv_2"));
  EXPECT_EQ(body["event"], "approval.decided");
  EXPECT_EQ(body["decision"], "approve");
  EXPECT_EQ(body["choice"], "approve");
  EXPECT_EQ(body["values"], Json({{"version", "1.2"}}));
  EXPECT_EQ(body["comment"], "looks good");
  EXPECT_EQ(body["decided_by"], "alice");
  EXPECT_EQ(body["decided_at"], "2023-11-14T22:14:20.500Z");
  EXPECT_EQ(body["prompt"], "Ship v1?");
}

TEST(ApprovalPayload, ExtraChoiceApproves_TimeoutFailIsItsOwn) {
  Json choice = Body(ApprovalPayloadJson(Decided("later"), "d"));
  EXPECT_EQ(choice["decision"], "approve");
  EXPECT_EQ(choice["choice"], "later");
  Json rejected = Body(ApprovalPayloadJson(Decided("reject"), "d"));
  EXPECT_EQ(rejected["decision"], "reject");
  Json failed = Body(ApprovalPayloadJson(Decided("fail", "timeout"), "d"));
  EXPECT_EQ(failed["decision"], "fail");
  EXPECT_EQ(failed["decided_by"], "timeout");
}

TEST(ApprovalPayload, Cancelled_SaysWhyAndWhenWithoutADecision) {
  ApprovalEvent event = Waiting();
  event.kind = ApprovalEvent::Kind::kCancelled;
  event.reason = "run cancelled: release postponed";
  event.ended_unix_ms = 1'700'000'030'000;
  Json body = Body(ApprovalPayloadJson(event, "dlv_3"));
  EXPECT_EQ(body["event"], "approval.cancelled");
  EXPECT_EQ(body["step_id"], "ok");
  EXPECT_EQ(body["reason"], "run cancelled: release postponed");
  EXPECT_EQ(body["ended_at"], "2023-11-14T22:13:50.000Z");
  EXPECT_FALSE(body.contains("decision"));
  EXPECT_NE(DeliveryId(event, "https://a.example/"), DeliveryId(Waiting(), "https://a.example/"));
}

TEST(DeliveryId, StableForTheSameDelivery_DifferentOtherwise) {
  const std::string id = DeliveryId(Waiting(), "https://a.example/");
  EXPECT_THAT(id, ::testing::MatchesRegex("dlv_[0-9a-f]{32}"));
  EXPECT_EQ(DeliveryId(Waiting(), "https://a.example/"), id);
  EXPECT_NE(DeliveryId(Waiting(), "https://b.example/"), id);
  EXPECT_NE(DeliveryId(Decided("approve"), "https://a.example/"), id);
  ApprovalEvent asked_again = Waiting();
  *asked_again.approval.mutable_waiting_since() = engine::ToTimestamp(1'700'000'999'000);
  EXPECT_NE(DeliveryId(asked_again, "https://a.example/"), id);
}

}  // namespace
}  // namespace taskboard::notify
