// A replica's NotLeader answer (scheduler/server/not_leader.h,
// engine_handle.h, call_gate.h): its message, its detail through
// ToGrpcStatus and back, the trailer CallGate adds, and the handle that
// decides it.

#include "scheduler/server/not_leader.h"

#include "gmock/gmock.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/server_context.h"
#include "gtest/gtest.h"
#include "scheduler/server/call_gate.h"
#include "scheduler/server/engine_handle.h"
#include "scheduler/server/grpc_status.h"

namespace taskboard::server {
namespace {

using ::testing::HasSubstr;

TEST(NotLeaderError, KnownLeader_NamesItsAddressAndEpoch) {
  const absl::Status status = NotLeaderError(LeaderHint{"10.0.0.5:7233", "10.0.0.5:8080", 42});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(status.message(), "not the leader; the leader is at 10.0.0.5:7233 (epoch 42)");
  std::optional<v1::NotLeader> detail = NotLeaderOf(status);
  ASSERT_TRUE(detail.has_value());
  EXPECT_EQ(detail->leader_grpc(), "10.0.0.5:7233");
  EXPECT_EQ(detail->leader_http(), "10.0.0.5:8080");
  EXPECT_EQ(detail->epoch(), 42);
}

TEST(NotLeaderError, NoLeader_SaysToRetry) {
  const absl::Status status = NotLeaderError(std::nullopt);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("no leader elected yet; retry"));
  ASSERT_TRUE(NotLeaderOf(status).has_value());
  EXPECT_EQ(NotLeaderOf(status)->leader_grpc(), "");
  EXPECT_FALSE(NotLeaderOf(absl::UnavailableError("other")).has_value());
}

TEST(NotLeaderError, TravelsAsAGrpcStatusDetailAndBack) {
  const grpc::Status sent = ToGrpcStatus(NotLeaderError(LeaderHint{"a:1", "a:2", 7}));
  EXPECT_EQ(sent.error_code(), grpc::StatusCode::UNAVAILABLE);
  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(sent.error_details()));
  ASSERT_EQ(details.details_size(), 1);
  v1::NotLeader detail;
  ASSERT_TRUE(details.details(0).UnpackTo(&detail));
  EXPECT_EQ(detail.leader_grpc(), "a:1");

  const absl::Status received = FromGrpcStatus(sent);
  ASSERT_TRUE(NotLeaderOf(received).has_value());
  EXPECT_EQ(NotLeaderOf(received)->leader_http(), "a:2");
  EXPECT_EQ(NotLeaderOf(received)->epoch(), 7);
}

TEST(EngineHandle, Unpublished_AnswersNotLeaderWithTheLastLeaderSeen) {
  EngineHandle handle;
  EXPECT_FALSE(handle.published());
  EXPECT_EQ(handle.engine(), nullptr);
  EXPECT_THAT(handle.CheckLeader().message(), HasSubstr("no leader elected yet"));
  handle.SetLeader(LeaderHint{"b:1", "", 3});
  EXPECT_THAT(handle.CheckLeader().message(), HasSubstr("the leader is at b:1 (epoch 3)"));
}

TEST(EngineHandle, Published_ServesWhileStillLeading) {
  EngineHandle handle;
  bool leading = true;
  handle.Publish(nullptr, nullptr, nullptr, [&leading] { return leading; });
  EXPECT_TRUE(handle.published());
  EXPECT_TRUE(handle.CheckLeader().ok());
  leading = false;  // past the lease deadline
  EXPECT_EQ(handle.CheckLeader().code(), absl::StatusCode::kUnavailable);
}

TEST(CallGate, Follower_RefusesWithTheLeaderTrailer) {
  EngineHandle handle;
  handle.SetLeader(LeaderHint{"c:7233", "c:8080", 9});
  CallGate gate(CallGateOptions{.leader = &handle});
  grpc::CallbackServerContext context;
  absl::StatusOr<auth::Caller> caller = gate.Admit(context, SchedulerMethod("GetRun"), nullptr);
  EXPECT_EQ(caller.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(caller.status().message(), HasSubstr("the leader is at c:7233"));

  handle.Publish(nullptr, nullptr, nullptr);
  grpc::CallbackServerContext served;
  EXPECT_TRUE(gate.Admit(served, SchedulerMethod("GetRun"), nullptr).ok());
}

}  // namespace
}  // namespace taskboard::server
