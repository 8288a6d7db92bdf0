#include "tools/cli/proto_json.h"

#include "google/protobuf/util/json_util.h"

namespace taskboard::cli {
namespace {

std::string ToJson(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  std::string json;
  // Printing only fails for messages with unresolvable Any types, which the
  // API does not use; "{}" keeps a JSON-lines stream parseable regardless.
  if (!google::protobuf::util::MessageToJsonString(message, &json, options).ok()) return "{}";
  if (pretty && !json.empty() && json.back() == '\n') json.pop_back();
  return json;
}

}  // namespace

std::string ProtoToJsonLine(const google::protobuf::Message& message) {
  return ToJson(message, false);
}

std::string ProtoToJsonPretty(const google::protobuf::Message& message) {
  return ToJson(message, true);
}

}  // namespace taskboard::cli
