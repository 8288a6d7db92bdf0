#ifndef TASKBOARD_SCHEDULER_WEB_HTTP_STATUS_H_
#define TASKBOARD_SCHEDULER_WEB_HTTP_STATUS_H_

// How the HTTP API (docs/http-api.md) reports a gRPC status: the HTTP status
// Google's API design guide maps each code to, and a JSON body
// {"code": "failed_precondition", "message": "..."} that keeps the exact
// code, so a curl user and the web console see what a gRPC client sees.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace taskboard::web {

int HttpStatusOf(absl::StatusCode code);

// "invalid_argument", "not_found", ...
std::string CodeName(absl::StatusCode code);

// {"code": ..., "message": ...}, with what it echoes escaped (EscapeForHtml);
// plus "flowErrors" for a flow that does not validate, and "leader": {"grpc",
// "http", "epoch"} from a replica that is not the leader.
std::string ErrorBody(const absl::Status& status);

// JSON text with `<`, `>` and `&` written as \u escapes, so that an error
// echoing a client's text can never be read as markup, whatever a browser
// guesses its type to be.
std::string EscapeForHtml(absl::string_view json);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_HTTP_STATUS_H_
