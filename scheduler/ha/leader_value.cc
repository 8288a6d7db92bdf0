#include "scheduler/ha/leader_value.h"

#include <optional>

#include "common/json.h"

namespace taskboard::ha {

std::string EncodeLeaderValue(const LeaderValue& value) {
  Json json = Json::object();
  json["replica"] = value.replica;
  json["grpc"] = value.grpc;
  json["http"] = value.http;
  return DumpJson(json);
}

LeaderValue DecodeLeaderValue(absl::string_view text) {
  std::optional<Json> parsed = TryParseJson(text);
  LeaderValue value;
  if (!parsed.has_value() || !parsed->is_object() || !parsed->contains("grpc") ||
      !parsed->at("grpc").is_string()) {
    value.grpc = std::string(text);
    return value;
  }
  value.grpc = parsed->at("grpc").get<std::string>();
  if (parsed->contains("replica") && parsed->at("replica").is_string()) {
    value.replica = parsed->at("replica").get<std::string>();
  }
  if (parsed->contains("http") && parsed->at("http").is_string()) {
    value.http = parsed->at("http").get<std::string>();
  }
  return value;
}

}  // namespace taskboard::ha
