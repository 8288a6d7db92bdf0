#include "worker/session/requests.h"

#include <utility>

#include "common/utf8.h"

namespace taskboard::worker {

v1::ConnectRequest TaskStartedRequest(const v1::Assignment& assignment) {
  v1::ConnectRequest message;
  message.mutable_task_started()->set_task_id(assignment.task_id());
  message.mutable_task_started()->set_lease_id(assignment.lease_id());
  return message;
}

v1::ConnectRequest OutputDeltaRequest(const v1::Assignment& assignment, std::string text) {
  v1::ConnectRequest message;
  v1::OutputDelta* delta = message.mutable_output_delta();
  delta->set_task_id(assignment.task_id());
  delta->set_lease_id(assignment.lease_id());
  delta->set_text(std::move(text));
  return message;
}

v1::ConnectRequest TaskResultRequest(const v1::Assignment& assignment, AgentOutcome outcome) {
  v1::ConnectRequest message;
  v1::TaskResult* result = message.mutable_task_result();
  result->set_task_id(assignment.task_id());
  result->set_lease_id(assignment.lease_id());
  result->set_success(outcome.success);
  result->set_output(ToValidUtf8(outcome.output));
  result->set_error(ToValidUtf8(outcome.error));
  *result->mutable_usage() = std::move(outcome.usage);
  *result->mutable_execution() = std::move(outcome.execution);
  return message;
}

v1::ConnectRequest TaskReturnedRequest(const v1::Assignment& assignment, absl::string_view reason) {
  v1::ConnectRequest message;
  v1::TaskReturned* returned = message.mutable_task_returned();
  returned->set_task_id(assignment.task_id());
  returned->set_lease_id(assignment.lease_id());
  returned->set_reason(std::string(reason));
  return message;
}

v1::ConnectRequest CreditsRequest(int slots, std::optional<int> prefetch) {
  v1::ConnectRequest message;
  message.mutable_credits()->set_slots(slots);
  if (prefetch.has_value()) message.mutable_credits()->set_prefetch(*prefetch);
  return message;
}

v1::ConnectRequest HeartbeatRequest(std::vector<std::string> lease_ids) {
  v1::ConnectRequest message;
  v1::Heartbeat* heartbeat = message.mutable_heartbeat();
  for (std::string& lease_id : lease_ids) heartbeat->add_lease_ids(std::move(lease_id));
  return message;
}

v1::ConnectRequest DrainingRequest(int64_t grace_ms) {
  v1::ConnectRequest message;
  message.mutable_draining()->set_grace_ms(grace_ms);
  return message;
}

}  // namespace taskboard::worker
