#include "scheduler/ha/in_sync_set.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/json.h"

namespace taskboard::ha {

std::string EncodeInSyncSet(const InSyncSet& set) {
  Json json = Json::object();
  json["epoch"] = set.epoch;
  json["leader"] = set.leader;
  json["replicas"] = set.replicas;
  if (set.index > 0) json["index"] = set.index;
  if (!set.successor.empty()) {
    json["successor"] = set.successor;
    json["successor_until_ms"] = absl::ToUnixMillis(set.successor_until);
  }
  return DumpJson(json);
}

bool InSyncSet::MayCampaign(const std::string& replica, absl::Time now) const {
  if (!successor.empty() && now < successor_until) return replica == successor;
  return replica == leader || replica == successor ||
         std::find(replicas.begin(), replicas.end(), replica) != replicas.end();
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
  if (json.contains("index")) {
    if (!json.at("index").is_number_unsigned()) {
      return absl::InvalidArgumentError(
          absl::StrCat("in-sync set: want index: a non-negative int, got ", text));
    }
    set.index = json.at("index").get<uint64_t>();
  }
  if (json.contains("successor")) {
    if (!json.at("successor").is_string() || !json.contains("successor_until_ms") ||
        !json.at("successor_until_ms").is_number_integer()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "in-sync set: want successor: string with successor_until_ms: int, got ", text));
    }
    set.successor = json.at("successor").get<std::string>();
    set.successor_until = absl::FromUnixMillis(json.at("successor_until_ms").get<int64_t>());
  }
  return set;
}

}  // namespace taskboard::ha
