#include "scheduler/notify/approval_payload.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "common/sha256.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/approval_phase.h"

namespace taskboard::notify {
namespace {

Json Rfc3339(const google::protobuf::Timestamp& ts) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromUnixMillis(engine::ToUnixMs(ts)),
                          absl::UTCTimeZone());
}

// The DSL's name; unset is the default, `reject`.
std::string OnTimeoutName(v1::ApprovalOnTimeout on_timeout) {
  const absl::string_view name = flow::ApprovalOnTimeoutName(on_timeout);
  return std::string(name.empty() ? "reject" : name);
}

Json Strings(const google::protobuf::RepeatedPtrField<std::string>& values) {
  Json out = Json::array();
  for (const std::string& value : values) out.push_back(value);
  return out;
}

}  // namespace

std::string DeliveryId(const engine::ApprovalEvent& event, absl::string_view url) {
  const std::string key =
      absl::StrCat(engine::ApprovalEventName(event.kind), "\n", event.run_id, "\n", event.step_id,
                   "\n", engine::ToUnixMs(event.approval.waiting_since()), "\n", url);
  return absl::StrCat("dlv_", Sha256Hex(key).substr(0, 32));
}

std::string ApprovalPayloadJson(const engine::ApprovalEvent& event, absl::string_view delivery_id) {
  const v1::TaskApproval& approval = event.approval;
  Json form = Json::array();
  for (const v1::ApprovalField& field : approval.form()) {
    form.push_back({{"name", field.name()},
                    {"description", field.description()},
                    {"required", field.required()}});
  }
  Json out = {{"event", std::string(engine::ApprovalEventName(event.kind))},
              {"delivery_id", std::string(delivery_id)},
              {"run_id", event.run_id},
              {"step_id", event.step_id},
              {"flow_name", event.flow_name},
              {"tenant", event.tenant},
              {"prompt", approval.prompt()},
              {"choices", Strings(approval.choices())},
              {"form", std::move(form)},
              {"approvers", Strings(approval.approvers())},
              {"waiting_since", Rfc3339(approval.waiting_since())},
              {"deadline", approval.has_deadline() ? Rfc3339(approval.deadline()) : Json()},
              {"on_timeout", OnTimeoutName(approval.on_timeout())}};
  if (event.kind == engine::ApprovalEvent::Kind::kDecided) {
    const v1::ApprovalDecision& decision = approval.decision();
    // As the task's output says it (approval_task.h): an extra choice
    // approves; onTimeout: fail is its own outcome.
    const std::string& made = decision.decision();
    Json values = Json::object();
    std::vector<std::string> names;
    for (const auto& entry : decision.values()) names.push_back(entry.first);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) values[name] = decision.values().at(name);
    out["decision"] = made == "reject" || made == "fail" ? made : "approve";
    out["choice"] = made;
    out["values"] = std::move(values);
    out["comment"] = decision.comment();
    out["decided_by"] = decision.decided_by();
    out["decided_at"] = Rfc3339(decision.decided_at());
  } else if (event.kind == engine::ApprovalEvent::Kind::kCancelled) {
    out["reason"] = event.reason;
    out["ended_at"] = Rfc3339(engine::ToTimestamp(event.ended_unix_ms));
  }
  return DumpJson(out);
}

}  // namespace taskboard::notify
