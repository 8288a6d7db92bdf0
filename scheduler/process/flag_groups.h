#ifndef TASKBOARD_SCHEDULER_PROCESS_FLAG_GROUPS_H_
#define TASKBOARD_SCHEDULER_PROCESS_FLAG_GROUPS_H_

// The scheduler's flags that each fill one options struct of a component:
// the fan-out limits, what an approval decision may carry, what a tenant's
// saved flows may hold, and the approval webhook. AddSchedulerFlags
// (scheduler_flags.h) declares them among the others; each writes into its
// struct, which must outlive parsing.

namespace CLI {
class App;
}  // namespace CLI

namespace taskboard {
namespace engine {
struct ApprovalLimits;
struct RunLimits;
struct SavedFlowLimits;
}  // namespace engine
namespace notify {
struct WebhookFlags;
}  // namespace notify

namespace process {

// The fan-out limits (scheduler/engine/state/run_limits.h, docs/security.md#limits).
void AddRunLimitFlags(CLI::App& app, engine::RunLimits& limits);
// What a person's decision may carry (docs/approvals.md#limits).
void AddApprovalLimitFlags(CLI::App& app, engine::ApprovalLimits& limits);
// What a tenant's saved flows may hold (docs/services.md#saved-flows).
void AddSavedFlowLimitFlags(CLI::App& app, engine::SavedFlowLimits& limits);
// The approval webhook (docs/approvals.md#notify).
void AddApprovalWebhookFlags(CLI::App& app, notify::WebhookFlags& flags);

}  // namespace process
}  // namespace taskboard

#endif  // TASKBOARD_SCHEDULER_PROCESS_FLAG_GROUPS_H_
