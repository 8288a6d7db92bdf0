#include "common/mcp/server_session.h"

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/mcp/json_rpc.h"

namespace taskboard::mcp {
namespace {

// Newest first: initialize answers the client's revision when it is here.
constexpr absl::string_view kSupportedVersions[] = {"2025-06-18", "2025-03-26", "2024-11-05"};

// A request's failure as a JSON-RPC error: INVALID_ARGUMENT is bad params,
// NOT_FOUND an unknown method, FAILED_PRECONDITION a request out of turn.
std::string Answer(const Json& id, const absl::Status& status) {
  int64_t code = kInternalError;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
      code = kInvalidParams;
      break;
    case absl::StatusCode::kNotFound:
      code = kMethodNotFound;
      break;
    case absl::StatusCode::kFailedPrecondition:
      code = kInvalidRequest;
      break;
    default:
      break;
  }
  return EncodeJsonRpcError(id, JsonRpcError{code, std::string(status.message()), Json()});
}

// The JSON-RPC error for a message that did not parse as one: a parse error
// for text that is not JSON, else an invalid request carrying the message's
// id when it has a usable one, so the client can match it to its request.
std::string Malformed(absl::string_view text, size_t max_bytes, absl::string_view why) {
  std::optional<Json> doc;
  if (text.size() <= max_bytes) doc = TryParseJson(text);
  Json id;
  if (doc.has_value() && doc->is_object()) {
    auto found = doc->find("id");
    if (found != doc->end() && IsValidJsonRpcId(*found)) id = *found;
  }
  return EncodeJsonRpcError(
      id, JsonRpcError{doc.has_value() ? kInvalidRequest : kParseError, std::string(why), Json()});
}

Json ToolsList(const ToolTable& tools) {
  Json list = Json::array();
  for (const ToolDescription& tool : tools.List()) {
    list.push_back({{"name", tool.name},
                    {"description", tool.description},
                    {"inputSchema", tool.input_schema}});
  }
  return Json{{"tools", std::move(list)}};
}

std::string ToolNames(const ToolTable& tools) {
  std::vector<std::string> names;
  for (const ToolDescription& tool : tools.List()) names.push_back(tool.name);
  return absl::StrJoin(names, ", ");
}

}  // namespace

bool IsSupportedProtocolVersion(absl::string_view version) {
  for (absl::string_view supported : kSupportedVersions) {
    if (version == supported) return true;
  }
  return false;
}

ServerSession::ServerSession(ServerOptions options, ToolTable& tools)
    : options_(std::move(options)), tools_(tools) {}

absl::StatusOr<Json> ServerSession::Initialize(const Json& params) {
  auto requested = params.is_object() ? params.find("protocolVersion") : params.end();
  if (!params.is_object() || requested == params.end() || !requested->is_string()) {
    return absl::InvalidArgumentError("initialize needs params.protocolVersion, a string");
  }
  const std::string& asked = requested->get_ref<const std::string&>();
  protocol_version_ = IsSupportedProtocolVersion(asked) ? asked : kLatestProtocolVersion;
  Json result = {{"protocolVersion", protocol_version_},
                 {"capabilities", {{"tools", {{"listChanged", false}}}}},
                 {"serverInfo", {{"name", options_.name}, {"version", options_.version}}}};
  if (!options_.instructions.empty()) result["instructions"] = options_.instructions;
  return result;
}

std::optional<std::string> ServerSession::Handle(absl::string_view text) {
  absl::StatusOr<JsonRpcMessage> parsed = ParseJsonRpcMessage(text, options_.max_message_bytes);
  if (!parsed.ok()) {
    return Malformed(text, options_.max_message_bytes, parsed.status().message());
  }
  // The server sends no requests, so a response answers nothing; the
  // notifications it is sent (initialized, cancelled) need no action: a
  // tool call is not interrupted midway (docs/mcp.md#taskboard-as-an-mcp-server).
  if (parsed->kind != JsonRpcMessage::Kind::kRequest) return std::nullopt;
  absl::StatusOr<Json> result = Dispatch(parsed->method, parsed->params);
  if (!result.ok()) return Answer(parsed->id, result.status());
  return EncodeJsonRpcResult(parsed->id, *result);
}

absl::StatusOr<Json> ServerSession::Dispatch(const std::string& method, const Json& params) {
  if (method == "initialize") return Initialize(params);
  if (method == "ping") return Json::object();
  if (options_.require_initialize && protocol_version_.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", method.substr(0, 100), "' before initialize: send initialize first"));
  }
  if (method == "tools/list") return ToolsList(tools_);
  if (method == "tools/call") return CallTool(params);
  return absl::NotFoundError(absl::StrCat("method '", method.substr(0, 100),
                                          "' is not served; this server has initialize, ping, "
                                          "tools/list and tools/call"));
}

absl::StatusOr<Json> ServerSession::CallTool(const Json& params) {
  auto name = params.is_object() ? params.find("name") : params.end();
  if (!params.is_object() || name == params.end() || !name->is_string()) {
    return absl::InvalidArgumentError("tools/call needs params.name, a string");
  }
  const std::string& tool = name->get_ref<const std::string&>();
  if (!tools_.Has(tool)) {
    return absl::InvalidArgumentError(absl::StrCat("Unknown tool: '", tool.substr(0, 100),
                                                   "'; the tools are: ", ToolNames(tools_)));
  }
  Json arguments = Json::object();
  if (auto given = params.find("arguments"); given != params.end() && !given->is_null()) {
    if (!given->is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("tools/call '", tool, "': arguments must be an object"));
    }
    arguments = *given;
  }
  Json meta;
  if (auto given = params.find("_meta"); given != params.end() && given->is_object()) meta = *given;
  ToolResult result = tools_.Call(tool, arguments, meta);
  Json answer = {{"content", Json::array({{{"type", "text"}, {"text", result.text}}})},
                 {"isError", result.is_error}};
  if (result.structured.is_object()) answer["structuredContent"] = std::move(result.structured);
  return answer;
}

}  // namespace taskboard::mcp
