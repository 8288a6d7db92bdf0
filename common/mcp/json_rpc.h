#ifndef TASKBOARD_COMMON_MCP_JSON_RPC_H_
#define TASKBOARD_COMMON_MCP_JSON_RPC_H_

// JSON-RPC 2.0 messages as the Model Context Protocol frames them: one JSON
// object per message (MCP 2025-06-18 dropped batches), requests and
// responses matched by an id that is a string or an integer, never null.
// Shared by the worker's MCP client (worker/tools/mcp) and, later, the
// scheduler's MCP server (docs/mcp.md).
//
// Parsing is bounded: a message longer than the caller's byte limit is
// refused before it is parsed, and nesting is bounded by the process-wide
// JSON depth (common/json_depth.h), so a hostile peer costs one clear error.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard::mcp {

// The error codes JSON-RPC 2.0 reserves.
inline constexpr int64_t kParseError = -32700;
inline constexpr int64_t kInvalidRequest = -32600;
inline constexpr int64_t kMethodNotFound = -32601;
inline constexpr int64_t kInvalidParams = -32602;
inline constexpr int64_t kInternalError = -32603;

struct JsonRpcError {
  int64_t code = kInternalError;
  std::string message;
  // Optional; null when absent.
  Json data;
};

struct JsonRpcMessage {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kNotification;
  // Requests and responses: a string or an integer.
  Json id;
  // Requests and notifications.
  std::string method;
  // Requests and notifications: an object, an array, or null when absent.
  Json params;
  // Responses: exactly one of result and error.
  Json result;
  std::optional<JsonRpcError> error;
};

// Parses one message. INVALID_ARGUMENT, saying what is wrong, when the text
// is longer than `max_bytes`, is not JSON, nests too deep, is a batch (an
// array), or is not a well-formed request, notification or response.
absl::StatusOr<JsonRpcMessage> ParseJsonRpcMessage(absl::string_view text, size_t max_bytes);

// Whether `id` may identify a request: a string or an integer.
bool IsValidJsonRpcId(const Json& id);

// Compact JSON text of one message, without a trailing newline. A null
// `params` is left out.
std::string EncodeJsonRpcRequest(const Json& id, absl::string_view method, const Json& params);
std::string EncodeJsonRpcNotification(absl::string_view method, const Json& params);
std::string EncodeJsonRpcResult(const Json& id, const Json& result);
std::string EncodeJsonRpcError(const Json& id, const JsonRpcError& error);

// "code -32601: Method not found" for error messages.
std::string DescribeJsonRpcError(const JsonRpcError& error);

}  // namespace taskboard::mcp

#endif  // TASKBOARD_COMMON_MCP_JSON_RPC_H_
