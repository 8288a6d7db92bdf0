#include "common/mcp/json_rpc.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace taskboard::mcp {
namespace {

absl::Status NotJsonRpc(absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("not a JSON-RPC 2.0 message: ", why));
}

// A value for an error message, cut short: peers' messages can be megabytes.
std::string Shown(const Json& value) {
  std::string text = DumpJson(value);
  if (text.size() > 80) text = absl::StrCat(text.substr(0, 77), "...");
  return text;
}

absl::StatusOr<JsonRpcError> ReadError(const Json& error) {
  if (!error.is_object())
    return NotJsonRpc(absl::StrCat("'error' is not an object: ", Shown(error)));
  JsonRpcError out;
  auto code = error.find("code");
  if (code == error.end() || !code->is_number_integer()) {
    return NotJsonRpc("'error.code' is missing or not an integer");
  }
  out.code = code->get<int64_t>();
  auto message = error.find("message");
  if (message == error.end() || !message->is_string()) {
    return NotJsonRpc("'error.message' is missing or not a string");
  }
  out.message = message->get<std::string>();
  if (auto data = error.find("data"); data != error.end()) out.data = *data;
  return out;
}

}  // namespace

bool IsValidJsonRpcId(const Json& id) { return id.is_string() || id.is_number_integer(); }

absl::StatusOr<JsonRpcMessage> ParseJsonRpcMessage(absl::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) {
    return NotJsonRpc(
        absl::StrCat("it is ", text.size(), " bytes, more than the limit of ", max_bytes));
  }
  std::optional<Json> doc = TryParseJson(text);
  if (!doc.has_value()) {
    // The reason (syntax or depth) from the parser that explains itself.
    absl::StatusOr<Json> explained = ParseJson(text);
    return NotJsonRpc(explained.ok() ? "not JSON" : explained.status().message());
  }
  if (doc->is_array()) return NotJsonRpc("batches (arrays) are not part of MCP 2025-06-18");
  if (!doc->is_object()) return NotJsonRpc(absl::StrCat("not an object: ", Shown(*doc)));
  auto version = doc->find("jsonrpc");
  if (version == doc->end() || *version != "2.0") {
    return NotJsonRpc("'jsonrpc' is not \"2.0\"");
  }
  JsonRpcMessage message;
  auto id = doc->find("id");
  const bool has_id = id != doc->end() && !id->is_null();
  if (has_id && !IsValidJsonRpcId(*id)) {
    return NotJsonRpc(absl::StrCat("'id' must be a string or an integer, got ", Shown(*id)));
  }
  if (has_id) message.id = *id;

  auto method = doc->find("method");
  if (method != doc->end()) {
    if (!method->is_string() || method->get_ref<const std::string&>().empty()) {
      return NotJsonRpc("'method' must be a non-empty string");
    }
    message.method = method->get<std::string>();
    if (id != doc->end() && id->is_null()) {
      return NotJsonRpc(absl::StrCat("request '", message.method, "' has a null 'id'"));
    }
    message.kind = has_id ? JsonRpcMessage::Kind::kRequest : JsonRpcMessage::Kind::kNotification;
    if (auto params = doc->find("params"); params != doc->end()) {
      if (!params->is_object() && !params->is_array()) {
        return NotJsonRpc(
            absl::StrCat("'params' of '", message.method, "' must be an object or an array"));
      }
      message.params = *params;
    }
    return message;
  }

  message.kind = JsonRpcMessage::Kind::kResponse;
  auto result = doc->find("result");
  auto error = doc->find("error");
  if ((result == doc->end()) == (error == doc->end())) {
    return NotJsonRpc("a response needs exactly one of 'result' and 'error'");
  }
  // A null id is how a peer answers a request it could not parse, with an
  // error; anything else needs the id of the request it answers.
  if (!has_id && (result != doc->end() || id == doc->end())) {
    return NotJsonRpc("a response without an id");
  }
  if (result != doc->end()) {
    message.result = std::move(*result);
  } else {
    absl::StatusOr<JsonRpcError> read = ReadError(*error);
    if (!read.ok()) return read.status();
    message.error = *std::move(read);
  }
  return message;
}

std::string EncodeJsonRpcRequest(const Json& id, absl::string_view method, const Json& params) {
  Json message = {{"jsonrpc", "2.0"}, {"id", id}, {"method", std::string(method)}};
  if (!params.is_null()) message["params"] = params;
  return DumpJson(message);
}

std::string EncodeJsonRpcNotification(absl::string_view method, const Json& params) {
  Json message = {{"jsonrpc", "2.0"}, {"method", std::string(method)}};
  if (!params.is_null()) message["params"] = params;
  return DumpJson(message);
}

std::string EncodeJsonRpcResult(const Json& id, const Json& result) {
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
}

std::string EncodeJsonRpcError(const Json& id, const JsonRpcError& error) {
  Json body = {{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) body["data"] = error.data;
  return DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(body)}});
}

std::string DescribeJsonRpcError(const JsonRpcError& error) {
  return absl::StrCat("code ", error.code, ": ", error.message);
}

}  // namespace taskboard::mcp
