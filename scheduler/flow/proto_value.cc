#include "scheduler/flow/proto_value.h"

#include <string>

#include "google/protobuf/util/json_util.h"

namespace taskboard::flow {

google::protobuf::Value JsonToProtoValue(const Json& value) {
  google::protobuf::Value out;
  (void)google::protobuf::util::JsonStringToMessage(DumpJson(value), &out);
  return out;
}

Json ProtoValueToJson(const google::protobuf::Value& value) {
  std::string text;
  (void)google::protobuf::util::MessageToJsonString(value, &text);
  absl::StatusOr<Json> json = ParseJson(text);
  return json.ok() ? *std::move(json) : Json();
}

Json ProtoStructToJson(const google::protobuf::Struct& value) {
  google::protobuf::Value wrapped;
  *wrapped.mutable_struct_value() = value;
  return ProtoValueToJson(wrapped);
}

}  // namespace taskboard::flow
