#ifndef TASKBOARD_SCHEDULER_SERVER_FLOW_INTAKE_H_
#define TASKBOARD_SCHEDULER_SERVER_FLOW_INTAKE_H_

// Turns what a client submitted (a FlowSpec, DSL text, or a saved flow's
// name, plus args) into a validated spec and bound args, enforcing the size
// limits first so nothing oversized is parsed or stored. No gRPC types: the
// service passes the request protos through.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/engine/approvals/approval_limits.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/runs/saved_flows.h"
#include "scheduler/engine/state/run_limits.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::server {

struct IntakeLimits {
  int64_t max_spec_bytes = 1 << 20;    // flow text or encoded spec
  int64_t max_args_bytes = 256 << 10;  // encoded args
  int max_tasks_per_run = 10'000;      // board tasks / taskflow phases
  // The engine's fan-out limits (the server copies EngineOptions::limits):
  // intake checks the ones a flow shows up front, so nothing accepted fails
  // later for a reason intake could have seen.
  engine::RunLimits run;
  // The engine's approval limits (the server copies
  // EngineOptions::approval_limits): a form over --approval-max-form-fields
  // is refused at submit, validate and save.
  engine::ApprovalLimits approval;
  // --approval-webhook-allow: the URL prefixes a flow's `approvalWebhook`
  // may start with (common/webhook_url.h); empty: flows may name none.
  std::vector<std::string> approval_webhook_allow;
};

// INVALID_ARGUMENT (with every flow error, including a maxIterations over
// --max-iterations and a form over --approval-max-form-fields), RESOURCE_EXHAUSTED for a size or
// count limit (naming the limit and the flag that raises it), NOT_FOUND for an unknown saved flow
// (saved flows are looked up among `tenant`'s).
absl::StatusOr<engine::SubmitRequest> PrepareSubmit(const v1::SubmitRunRequest& request,
                                                    const std::string& tenant,
                                                    engine::SavedFlows& saved,
                                                    const IntakeLimits& limits);

// The flow of a Validate / Save request (spec or DSL text), validated and
// checked against the limits; errors as PrepareSubmit's.
absl::StatusOr<v1::FlowSpec> LoadRequestFlow(bool has_spec, const v1::FlowSpec& spec,
                                             const v1::FlowSource& source,
                                             const IntakeLimits& limits);

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_FLOW_INTAKE_H_
