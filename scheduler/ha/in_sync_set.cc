#include "scheduler/ha/in_sync_set.h"

#include "absl/strings/str_cat.h"
#include "common/json.h"

namespace taskboard::ha {

std::string EncodeInSyncSet(const InSyncSet& set) {
  Json json = Json::object();
  json["epoch"] = set.epoch;
  json["leader"] = set.leader;
  json["replicas"] = set.replicas;
  return DumpJson(json);
}

absl::StatusOr<InSyncSet> DecodeInSyncSet(absl::string_view text) {
  std::optional<Json> parsed = TryParseJson(text);
  if (!parsed.has_value() || !parsed->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat("in-sync set: not a JSON object: ", text));
  }
  const Json& json = *parsed;
  InSyncSet set;
  if (!json.contains("epoch") || !json.at("epoch").is_number_integer() ||
      !json.contains("leader") || !json.at("leader").is_string() || !json.contains("replicas") ||
      !json.at("replicas").is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "in-sync set: want {epoch: int, leader: string, replicas: [string]}, got ", text));
  }
  set.epoch = json.at("epoch").get<int64_t>();
  set.leader = json.at("leader").get<std::string>();
  for (const Json& replica : json.at("replicas")) {
    if (!replica.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("in-sync set: a replica that is not a string in ", text));
    }
    set.replicas.push_back(replica.get<std::string>());
  }
  return set;
}

}  // namespace taskboard::ha
