#include "scheduler/flow/proto_value.h"

#include <string>

#include "google/protobuf/util/json_util.h"

namespace taskboard::flow {

// Direct, not through JSON text: protobuf's JSON parser stops at 100 levels
// and would silently drop a deeper (but accepted) value. The recursion is
// bounded by the depth every Json value was parsed under (MaxJsonDepth).
google::protobuf::Value JsonToProtoValue(const Json& value) {
  google::protobuf::Value out;
  switch (value.type()) {
    case Json::value_t::boolean:
      out.set_bool_value(value.get<bool>());
      break;
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      out.set_number_value(value.get<double>());
      break;
    case Json::value_t::string:
      out.set_string_value(value.get<std::string>());
      break;
    case Json::value_t::array: {
      google::protobuf::ListValue& list = *out.mutable_list_value();
      for (const Json& element : value) *list.add_values() = JsonToProtoValue(element);
      break;
    }
    case Json::value_t::object: {
      auto& fields = *out.mutable_struct_value()->mutable_fields();
      for (const auto& [key, element] : value.items()) fields[key] = JsonToProtoValue(element);
      break;
    }
    default:
      out.set_null_value(google::protobuf::NULL_VALUE);
      break;
  }
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
