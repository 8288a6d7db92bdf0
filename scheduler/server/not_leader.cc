#include "scheduler/server/not_leader.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace taskboard::server {

absl::Status NotLeaderError(const std::optional<LeaderHint>& leader) {
  v1::NotLeader detail;
  absl::Status status;
  if (leader.has_value() && !leader->grpc.empty()) {
    detail.set_leader_grpc(leader->grpc);
    detail.set_leader_http(leader->http);
    detail.set_epoch(leader->epoch);
    status = absl::UnavailableError(absl::StrCat("not the leader; the leader is at ", leader->grpc,
                                                 " (epoch ", leader->epoch, ")"));
  } else {
    status = absl::UnavailableError("not the leader: no leader elected yet; retry");
  }
  status.SetPayload(kNotLeaderPayloadUrl, absl::Cord(detail.SerializeAsString()));
  return status;
}

std::optional<v1::NotLeader> NotLeaderOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kNotLeaderPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  v1::NotLeader detail;
  if (!detail.ParseFromString(std::string(*payload))) return std::nullopt;
  return detail;
}

}  // namespace taskboard::server
