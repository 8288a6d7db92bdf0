#include "scheduler/web/gateway_calls.h"

namespace taskboard::web {

absl::StatusOr<Json> GatewayCalls::Call(absl::string_view method, const Json& request) {
  absl::StatusOr<std::string> response = gateway_.Call(method, DumpJson(request), authorization_);
  if (!response.ok()) return response.status();
  return ParseJson(*response);
}

}  // namespace taskboard::web
