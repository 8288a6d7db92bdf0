#include "scheduler/web/http_status.h"

#include "absl/strings/cord.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/server/not_leader.h"

namespace taskboard::web {
namespace {

TEST(HttpStatusOf, FollowsGooglesMapping) {
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kOk), 200);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kFailedPrecondition), 400);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnauthenticated), 401);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kPermissionDenied), 403);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kAlreadyExists), 409);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kResourceExhausted), 429);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kDeadlineExceeded), 504);
  EXPECT_EQ(HttpStatusOf(absl::StatusCode::kInternal), 500);
}

TEST(ErrorBody, KeepsTheExactCodeAndMessage) {
  nlohmann::json body =
      nlohmann::json::parse(ErrorBody(absl::FailedPreconditionError("decided by alice at 10:00")));
  EXPECT_EQ(body["code"], "failed_precondition");
  EXPECT_EQ(body["message"], "decided by alice at 10:00");
  EXPECT_FALSE(body.contains("flowErrors"));
}

TEST(ErrorBody, InvalidUtf8InTheMessageIsReplacedNotThrown) {
  nlohmann::json body =
      nlohmann::json::parse(ErrorBody(absl::InvalidArgumentError("bad \xff byte")));
  EXPECT_EQ(body["code"], "invalid_argument");
}

TEST(ErrorBody, CarriesFlowValidationErrors) {
  v1::FlowErrors errors;
  v1::FlowError& error = *errors.add_errors();
  error.set_path("phases[0].tsk");
  error.set_message("unknown field");
  absl::Status status = absl::InvalidArgumentError("the flow does not validate");
  status.SetPayload(flow::kFlowErrorsPayloadUrl, absl::Cord(errors.SerializeAsString()));
  nlohmann::json body = nlohmann::json::parse(ErrorBody(status));
  ASSERT_TRUE(body.contains("flowErrors"));
  EXPECT_EQ(body["flowErrors"]["errors"][0]["path"], "phases[0].tsk");
}

TEST(ErrorBody, EscapesMarkupItEchoes) {
  const std::string body =
      ErrorBody(absl::NotFoundError("no method '<script>alert(1)</script>' & more"));
  EXPECT_EQ(body.find('<'), std::string::npos) << body;
  EXPECT_EQ(body.find('>'), std::string::npos) << body;
  EXPECT_EQ(body.find('&'), std::string::npos) << body;
  // Still the same message to a JSON reader.
  EXPECT_EQ(nlohmann::json::parse(body)["message"], "no method '<script>alert(1)</script>' & more");
}

TEST(ErrorBody, NotLeader_NamesTheLeader) {
  const nlohmann::json body = nlohmann::json::parse(
      ErrorBody(server::NotLeaderError(server::LeaderHint{"l:7233", "l:8080", 5})));
  EXPECT_EQ(body["code"], "unavailable");
  EXPECT_EQ(body["leader"]["grpc"], "l:7233");
  EXPECT_EQ(body["leader"]["http"], "l:8080");
  EXPECT_EQ(body["leader"]["epoch"], 5);
}

}  // namespace
}  // namespace taskboard::web
