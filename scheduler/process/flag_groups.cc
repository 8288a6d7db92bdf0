#include "scheduler/process/flag_groups.h"

#include <cstdint>

#include "CLI/CLI.hpp"
#include "scheduler/engine/approvals/approval_limits.h"
#include "scheduler/engine/runs/saved_flows.h"
#include "scheduler/engine/state/run_limits.h"
#include "scheduler/notify/webhook_flags.h"

namespace taskboard::process {

void AddRunLimitFlags(CLI::App& app, engine::RunLimits& limits) {
  namespace flags = engine::limit_flags;
  app.add_option(flags::kMaxItemsPerPhase, limits.max_items_per_phase,
                 "Most tasks one map phase fans out to (or branches in one parallel phase)")
      ->envname("TASKBOARD_MAX_ITEMS_PER_PHASE")
      ->capture_default_str();
  app.add_option(flags::kMaxPlanTasks, limits.max_plan_tasks,
                 "Most tasks in one plan (planner, replanner, evaluator); larger plans are invalid")
      ->envname("TASKBOARD_MAX_PLAN_TASKS")
      ->capture_default_str();
  app.add_option(flags::kMaxIterations, limits.max_iterations,
                 "Highest maxIterations a flow may ask for (higher: rejected at submit)")
      ->envname("TASKBOARD_MAX_ITERATIONS")
      ->capture_default_str();
  app.add_option(flags::kMaxInterpolatedBytes, limits.max_interpolated_bytes,
                 "Largest task text after interpolation (larger: the phase fails)")
      ->envname("TASKBOARD_MAX_INTERPOLATED_BYTES")
      ->capture_default_str();
  app.add_option(flags::kMaxToolResultBytes, limits.max_tool_result_bytes,
                 "Largest tool result recorded or cached (larger: recorded as an error)")
      ->envname("TASKBOARD_MAX_TOOL_RESULT_BYTES")
      ->capture_default_str();
  app.add_option(flags::kMaxChildRunsPerRun, limits.max_child_runs_per_run,
                 "Most child runs one run may start (nested patterns)")
      ->envname("TASKBOARD_MAX_CHILD_RUNS_PER_RUN")
      ->capture_default_str();
  app.add_option(flags::kMaxRunDepth, limits.max_run_depth,
                 "How deep runs may nest (child runs, runs agents start); a root run is depth 0")
      ->envname("TASKBOARD_MAX_RUN_DEPTH")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  app.add_option(flags::kMaxEventBytes, limits.max_event_bytes,
                 "Largest run event; longer texts in it are cut with a marker")
      ->envname("TASKBOARD_MAX_EVENT_BYTES")
      ->check(CLI::Range(int64_t{1024}, int64_t{INT32_MAX}))
      ->capture_default_str();
}

void AddApprovalLimitFlags(CLI::App& app, engine::ApprovalLimits& limits) {
  namespace approval = engine::approval_limit_flags;
  app.add_option(approval::kMaxCommentBytes, limits.max_comment_bytes,
                 "Largest comment of an approval decision (larger: INVALID_ARGUMENT)")
      ->envname("TASKBOARD_APPROVAL_MAX_COMMENT_BYTES")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option(approval::kMaxFormValueBytes, limits.max_form_value_bytes,
                 "Largest form value of an approval decision (larger: INVALID_ARGUMENT)")
      ->envname("TASKBOARD_APPROVAL_MAX_FORM_VALUE_BYTES")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option(approval::kMaxFormFields, limits.max_form_fields,
                 "Most fields in one approval's form, and values in one decision")
      ->envname("TASKBOARD_APPROVAL_MAX_FORM_FIELDS")
      ->check(CLI::Range(0, 10'000))
      ->capture_default_str();
}

void AddSavedFlowLimitFlags(CLI::App& app, engine::SavedFlowLimits& limits) {
  namespace saved = engine::saved_flow_flags;
  app.add_option(saved::kMaxVersions, limits.max_versions,
                 "Versions kept per saved flow; saving one more deletes the oldest")
      ->envname("TASKBOARD_SAVED_FLOW_MAX_VERSIONS")
      ->check(CLI::Range(1, 1'000'000))
      ->capture_default_str();
  app.add_option(saved::kMaxPerTenant, limits.max_flows_per_tenant,
                 "Saved flows (names) one tenant may have (more: RESOURCE_EXHAUSTED)")
      ->envname("TASKBOARD_SAVED_FLOWS_MAX_PER_TENANT")
      ->check(CLI::Range(int64_t{0}, int64_t{100'000'000}))
      ->capture_default_str();
  app.add_option(saved::kMaxBytesPerTenant, limits.max_bytes_per_tenant,
                 "Bytes of saved flow versions one tenant may store (more: RESOURCE_EXHAUSTED)")
      ->envname("TASKBOARD_SAVED_FLOWS_MAX_BYTES_PER_TENANT")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40))
      ->capture_default_str();
}

void AddApprovalWebhookFlags(CLI::App& app, notify::WebhookFlags& flags) {
  app.add_option("--approval-webhook", flags.url,
                 "POST every approval's events (approval.waiting, approval.decided) to this "
                 "http(s) URL; empty: only the flows' own approvalWebhook")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK");
  app.add_option("--approval-webhook-secret-file", flags.secret_file,
                 "Sign approval webhook requests (X-Taskboard-Signature, HMAC-SHA256) with the "
                 "key in this file (trailing newlines dropped); empty: unsigned")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_SECRET_FILE");
  app.add_option("--approval-webhook-allow", flags.allow,
                 "URL prefixes (comma-separated) a flow's own approvalWebhook may start with; "
                 "empty: flows may name none")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_ALLOW")
      ->delimiter(',');
  app.add_option("--approval-webhook-attempts", flags.attempts,
                 "Attempts per approval webhook delivery (retried after connection errors, "
                 "timeouts, 5xx and 429, waiting 1 s doubling up to 60 s)")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_ATTEMPTS")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--approval-webhook-queue", flags.queue,
                 "Approval webhook deliveries held (new and retrying); when full the oldest is "
                 "dropped")
      ->envname("TASKBOARD_APPROVAL_WEBHOOK_QUEUE")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}))
      ->capture_default_str();
}

}  // namespace taskboard::process
