#include "tools/cli/rpc_errors.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "google/rpc/status.pb.h"
#include "tools/cli/flow_error_report.h"

namespace taskboard::cli {
namespace {

std::string CodeName(grpc::StatusCode code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

// "flow is invalid (2 errors):\n  ..." -> "flow is invalid": the summary the
// scheduler puts above the list, without the count PrintFlowErrors adds.
std::string ErrorSummary(const std::string& message) {
  absl::string_view first =
      absl::StripSuffix(absl::StripAsciiWhitespace(*absl::StrSplit(message, '\n').begin()), ":");
  if (size_t open = first.rfind(" ("); open != absl::string_view::npos && first.back() == ')') {
    first = first.substr(0, open);
  }
  return first.empty() ? "invalid request" : std::string(first);
}

}  // namespace

v1::FlowErrors FlowErrorsFromRpcStatus(const grpc::Status& status) {
  v1::FlowErrors errors;
  google::rpc::Status details;
  if (status.error_details().empty() || !details.ParseFromString(status.error_details())) {
    return errors;
  }
  for (const google::protobuf::Any& detail : details.details()) {
    v1::FlowErrors found;
    if (detail.UnpackTo(&found)) errors.MergeFrom(found);
  }
  return errors;
}

int ReportRpcError(absl::string_view command, const std::string& address,
                   const grpc::Status& status, std::ostream& err) {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      err << command << ": cannot reach the scheduler at " << address << ": "
          << status.error_message() << " (start one with `taskboard dev`)\n";
      return 2;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      err << command << ": the scheduler at " << address
          << " did not answer in time: " << status.error_message() << "\n";
      return 2;
    case grpc::StatusCode::UNAUTHENTICATED:
      err << command << ": the scheduler at " << address
          << " rejected the credentials: " << status.error_message()
          << " (pass --token or set TASKBOARD_TOKEN to a client token)\n";
      return 2;
    default:
      break;
  }
  const v1::FlowErrors errors = FlowErrorsFromRpcStatus(status);
  if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT && errors.errors_size() > 0) {
    PrintFlowErrors(command, ErrorSummary(status.error_message()), errors, err);
  } else {
    err << command << ": " << CodeName(status.error_code()) << ": " << status.error_message()
        << "\n";
  }
  return 1;
}

}  // namespace taskboard::cli
