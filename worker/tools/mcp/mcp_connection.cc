#include "worker/tools/mcp/mcp_connection.h"

namespace taskboard::worker {
namespace {

constexpr char kSessionLostPayload[] = "taskboard.dev/mcp-session-lost";

}  // namespace

absl::Status McpSessionLost(absl::Status status) {
  status.SetPayload(kSessionLostPayload, absl::Cord("1"));
  return status;
}

bool IsMcpSessionLost(const absl::Status& status) {
  return status.GetPayload(kSessionLostPayload).has_value();
}

}  // namespace taskboard::worker
