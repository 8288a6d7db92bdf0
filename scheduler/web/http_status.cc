#include "scheduler/web/http_status.h"

#include "absl/strings/ascii.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/server/not_leader.h"

namespace taskboard::web {

int HttpStatusOf(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

std::string CodeName(absl::StatusCode code) {
  return absl::AsciiStrToLower(absl::StatusCodeToString(code));
}

std::string ErrorBody(const absl::Status& status) {
  nlohmann::json body = {{"code", CodeName(status.code())},
                         {"message", std::string(status.message())}};
  // A flow that does not validate: every error with its path, as the gRPC
  // API's FlowErrors detail carries them.
  if (status.GetPayload(flow::kFlowErrorsPayloadUrl).has_value()) {
    std::string errors;
    if (google::protobuf::util::MessageToJsonString(flow::FlowErrorsFromStatus(status), &errors)
            .ok()) {
      body["flowErrors"] = nlohmann::json::parse(errors, nullptr, false);
    }
  }
  // A replica that does not lead: where the leader is
  // (docs/high-availability.md#finding-the-leader).
  if (std::optional<v1::NotLeader> leader = server::NotLeaderOf(status); leader.has_value()) {
    body["leader"] = {{"grpc", leader->leader_grpc()},
                      {"http", leader->leader_http()},
                      {"epoch", leader->epoch()}};
  }
  // Replacement characters rather than an exception for a message that is
  // not UTF-8 (it may quote a client's bytes).
  return EscapeForHtml(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string EscapeForHtml(absl::string_view json) {
  // Inside JSON these only occur in strings, where \u escapes mean the same.
  std::string out;
  out.reserve(json.size());
  for (const char c : json) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace taskboard::web
