// The leader key's value (scheduler/ha/leader_value.h): the replica and its
// two addresses as JSON, and a bare address read as the gRPC one.

#include "scheduler/ha/leader_value.h"

#include "gtest/gtest.h"

namespace taskboard::ha {
namespace {

TEST(LeaderValue, EncodedValue_DecodesToTheSameFields) {
  const LeaderValue decoded =
      DecodeLeaderValue(EncodeLeaderValue({.replica = "s1", .grpc = "a:7233", .http = "a:8080"}));
  EXPECT_EQ(decoded.replica, "s1");
  EXPECT_EQ(decoded.grpc, "a:7233");
  EXPECT_EQ(decoded.http, "a:8080");
}

TEST(LeaderValue, BareAddress_IsTheGrpcAddress) {
  const LeaderValue decoded = DecodeLeaderValue("127.0.0.1:7233");
  EXPECT_EQ(decoded.grpc, "127.0.0.1:7233");
  EXPECT_EQ(decoded.http, "");
  EXPECT_EQ(DecodeLeaderValue(R"({"http":"x"})").grpc, R"({"http":"x"})");
}

}  // namespace
}  // namespace taskboard::ha
