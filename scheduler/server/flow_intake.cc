#include "scheduler/server/flow_intake.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/webhook_url.h"
#include "scheduler/flow/dsl_text.h"
#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_loader.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/phase_pattern.h"
#include "scheduler/flow/proto_value.h"
#include "scheduler/flow/run_args.h"

namespace taskboard::server {
namespace {

absl::Status TooLarge(absl::string_view what, int64_t size, int64_t limit, absl::string_view flag) {
  return absl::ResourceExhaustedError(absl::StrCat(what, " is ", size, " bytes, over the limit of ",
                                                   limit, " bytes (scheduler flag ", flag, ")"));
}

flow::DslFormat FormatOf(v1::DslFormat format) {
  switch (format) {
    case v1::DSL_FORMAT_JSON:
      return flow::DslFormat::kJson;
    case v1::DSL_FORMAT_YAML:
      return flow::DslFormat::kYaml;
    default:
      return flow::DslFormat::kAuto;
  }
}

absl::Status CheckTaskCount(const v1::FlowSpec& spec, int count, const IntakeLimits& limits) {
  if (count > limits.max_tasks_per_run) {
    return absl::ResourceExhaustedError(
        absl::StrCat("flow '", spec.name(), "' has ", count, " tasks, over the limit of ",
                     limits.max_tasks_per_run,
                     " per run (scheduler flag --max-tasks-per-run); split it into several runs"));
  }
  return absl::OkStatus();
}

// A maxIterations over the cluster's cap is a validation error, not a
// silent clamp (docs/decisions.md): the flow asked for rounds it cannot get.
void CheckIterations(int iterations, const std::string& path, const engine::RunLimits& limits,
                     flow::FlowErrorList& errors) {
  if (iterations <= limits.max_iterations) return;
  errors.Add(path, absl::StrCat("maxIterations ", iterations, " is over the scheduler's limit of ",
                                limits.max_iterations, " (scheduler flag ",
                                engine::limit_flags::kMaxIterations, ")"));
}

// A flow's own webhook makes the scheduler POST wherever it says: only to
// what the operator allowed.
void CheckApprovalWebhook(const v1::FlowSpec& spec, const IntakeLimits& limits,
                          flow::FlowErrorList& errors) {
  const std::string& url = spec.approval_webhook();
  if (url.empty() || WebhookUrlAllowed(url, limits.approval_webhook_allow)) return;
  errors.Add("approvalWebhook",
             limits.approval_webhook_allow.empty()
                 ? absl::StrCat("'", url,
                                "' is not allowed: this scheduler allows no per-flow webhooks "
                                "(scheduler flag --approval-webhook-allow); remove "
                                "approvalWebhook or ask the operator to allow its prefix")
                 : absl::StrCat("'", url,
                                "' is not allowed: it must start with one of the prefixes of the "
                                "scheduler flag --approval-webhook-allow (",
                                absl::StrJoin(limits.approval_webhook_allow, ", "), ")"));
}

// What the run would fan out to that the flow shows up front: task counts,
// parallel branches, revision rounds and approval forms.
absl::Status CheckFlowLimits(const v1::FlowSpec& spec, const IntakeLimits& limits) {
  const flow::FlowKindInfo* kind = flow::FindFlowKind(spec);
  const flow::DeclaredBounds bounds =
      kind == nullptr ? flow::DeclaredBounds{} : kind->declared_bounds(spec);
  if (absl::Status count = CheckTaskCount(spec, bounds.tasks, limits); !count.ok()) return count;
  const engine::RunLimits& run = limits.run;
  for (const flow::DeclaredBounds::Parallel& phase : bounds.parallel) {
    if (phase.branches > run.max_items_per_phase) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "parallel phase '", phase.phase_id, "' has ", phase.branches,
          " branches, over the limit of ", run.max_items_per_phase, " per phase (scheduler flag ",
          engine::limit_flags::kMaxItemsPerPhase, "); split it into several phases"));
    }
  }
  flow::FlowErrorList errors;
  CheckApprovalWebhook(spec, limits, errors);
  engine::CheckApprovalForms(spec, limits.approval, errors);
  for (const flow::DeclaredBounds::Iterations& iterations : bounds.iterations) {
    CheckIterations(iterations.value, iterations.path, run, errors);
  }
  return errors.ToStatus();
}

// Replay, GetRun and every client decode what a run stores with protobuf's
// default limit of 100 nested messages, and a JSON object level inside a
// Struct takes three of them. Args or arg defaults about 30 objects deep
// parse as JSON but could not be read back, so they are refused here: nothing
// accepted may fail at replay. Checked where they sit deepest, in a GetRun
// answer.
absl::Status CheckReadableBack(const v1::FlowSpec& spec, const Json* args) {
  v1::GetRunResponse response;
  *response.mutable_run()->mutable_spec() = spec;
  if (args != nullptr)
    *response.mutable_run()->mutable_args() = flow::JsonToProtoValue(*args).struct_value();
  v1::GetRunResponse decoded;
  if (decoded.ParseFromString(response.SerializeAsString())) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "flow '", spec.name(), "': its ", args != nullptr ? "args or arg defaults" : "arg defaults",
      " nest too deeply to be stored and read back (protobuf decodes at most 100 levels of "
      "nested messages, and each JSON object level takes 3, so about 30 levels of objects): "
      "flatten them, or pass deep data as a JSON string"));
}

}  // namespace

absl::StatusOr<v1::FlowSpec> LoadRequestFlow(bool has_spec, const v1::FlowSpec& spec,
                                             const v1::FlowSource& source,
                                             const IntakeLimits& limits) {
  if (has_spec) {
    int64_t size = static_cast<int64_t>(spec.ByteSizeLong());
    if (size > limits.max_spec_bytes) {
      return TooLarge("the flow spec", size, limits.max_spec_bytes, "--max-spec-bytes");
    }
    absl::Status checked = flow::CheckFlowSpec(spec);
    if (!checked.ok()) return checked;
    if (absl::Status limited = CheckFlowLimits(spec, limits); !limited.ok()) return limited;
    return spec;
  }
  int64_t size = static_cast<int64_t>(source.text().size());
  if (size > limits.max_spec_bytes) {
    return TooLarge("the flow text", size, limits.max_spec_bytes, "--max-spec-bytes");
  }
  if (source.text().empty()) {
    return absl::InvalidArgumentError(
        "no flow given: set spec, source.text (JSON or YAML), or saved.name");
  }
  absl::StatusOr<v1::FlowSpec> loaded =
      flow::LoadFlowText(source.text(), FormatOf(source.format()));
  if (!loaded.ok()) return loaded;
  if (absl::Status limited = CheckFlowLimits(*loaded, limits); !limited.ok()) return limited;
  return loaded;
}

namespace {

// Saved flows a run's plans name as step executors nest at most this deep (a
// flow whose steps run itself would otherwise never end).
constexpr int kMaxStepFlowDepth = 4;

// A plan's `stepExecutor: {flow: NAME}` names a saved flow; the run carries
// that flow as it is at submit, so a later save does not change running work.
absl::Status ResolveStepFlows(v1::FlowSpec& spec, const std::string& tenant,
                              engine::SavedFlows& saved, int depth) {
  for (auto& [path, plan] : flow::PlansOf(spec)) {
    if (plan->step_flow().empty()) continue;
    const std::string where = absl::StrCat(path, ".stepExecutor.flow");
    if (depth >= kMaxStepFlowDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": saved flows used as step executors nest more than ",
                       kMaxStepFlowDepth, " deep; does '", plan->step_flow(), "' run itself?"));
    }
    absl::StatusOr<v1::SavedFlow> flow = saved.Get(tenant, plan->step_flow(), 0);
    if (!flow.ok()) {
      return absl::Status(flow.status().code(), absl::StrCat(where, ": ", flow.status().message()));
    }
    v1::FlowSpec step = std::move(*flow->mutable_spec());
    const bool takes_goal =
        std::any_of(step.args().begin(), step.args().end(),
                    [](const v1::ArgSpec& arg) { return arg.name() == "goal"; });
    if (!takes_goal) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": saved flow '", plan->step_flow(),
          "' has no arg `goal`; a step executor flow receives each step's goal as its arg "
          "`goal`: declare it (args: {goal: {required: true}}) and use {args.goal}"));
    }
    // The step flow's other args come from the run that uses it (engine
    // ChildRunArgs): one it requires that this flow does not declare would
    // fail every step.
    for (const v1::ArgSpec& arg : step.args()) {
      if (arg.name() == "goal" || !arg.required() || arg.has_default_value()) continue;
      const bool declared =
          std::any_of(spec.args().begin(), spec.args().end(),
                      [&arg](const v1::ArgSpec& own) { return own.name() == arg.name(); });
      if (!declared) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": saved flow '", plan->step_flow(), "' requires arg '", arg.name(),
            "', which this flow does not declare; a step executor flow gets the step's goal and "
            "the args of the flow that runs it: declare '",
            arg.name(), "' here, or give it a default in '", plan->step_flow(), "'"));
      }
    }
    if (absl::Status nested = ResolveStepFlows(step, tenant, saved, depth + 1); !nested.ok()) {
      return nested;
    }
    *plan->mutable_step_flow_spec() = std::move(step);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<engine::SubmitRequest> PrepareSubmit(const v1::SubmitRunRequest& request,
                                                    const std::string& tenant,
                                                    engine::SavedFlows& saved,
                                                    const IntakeLimits& limits) {
  int64_t args_size = static_cast<int64_t>(request.args().ByteSizeLong());
  if (args_size > limits.max_args_bytes) {
    return TooLarge("the run's args", args_size, limits.max_args_bytes, "--max-args-bytes");
  }
  if (request.run_timeout_seconds() < 0 ||
      request.run_timeout_seconds() > flow::kMaxRunTimeoutSeconds) {
    flow::FlowErrorList errors;
    errors.Add("runTimeoutSeconds",
               absl::StrCat("must be from 1 to ", flow::kMaxRunTimeoutSeconds,
                            " seconds (30 days), or 0 for no run deadline (got ",
                            request.run_timeout_seconds(), ")"));
    return errors.ToStatus("the run request is invalid");
  }
  absl::StatusOr<v1::FlowSpec> spec;
  switch (request.flow_case()) {
    case v1::SubmitRunRequest::kSpec:
      spec = LoadRequestFlow(true, request.spec(), {}, limits);
      break;
    case v1::SubmitRunRequest::kSource:
      spec = LoadRequestFlow(false, {}, request.source(), limits);
      break;
    case v1::SubmitRunRequest::kSaved: {
      absl::StatusOr<v1::SavedFlow> flow =
          saved.Get(tenant, request.saved().name(), request.saved().version());
      if (!flow.ok()) return flow.status();
      spec = std::move(*flow->mutable_spec());
      break;
    }
    default:
      return absl::InvalidArgumentError(
          "no flow given: set spec, source.text (JSON or YAML), or saved.name");
  }
  if (!spec.ok()) return spec.status();
  if (absl::Status resolved = ResolveStepFlows(*spec, tenant, saved, 0); !resolved.ok()) {
    return resolved;
  }
  // Saved flows are checked again: the limits may have changed since.
  if (absl::Status limited = CheckFlowLimits(*spec, limits); !limited.ok()) return limited;

  absl::StatusOr<Json> args = flow::BindRunArgs(*spec, flow::ProtoStructToJson(request.args()));
  if (!args.ok()) return args.status();
  if (absl::Status readable = CheckReadableBack(*spec, &*args); !readable.ok()) return readable;

  engine::SubmitRequest submit;
  submit.spec = *std::move(spec);
  submit.args = *std::move(args);
  submit.session_id = request.session_id();
  submit.idempotency_key = request.idempotency_key();
  for (const auto& [key, value] : request.labels()) submit.labels[key] = value;
  submit.run_timeout_seconds = request.run_timeout_seconds();
  submit.run_timeout_source = v1::RUN_DEADLINE_SOURCE_SUBMIT;
  if (request.has_started_by()) {
    // The engine checks the run and task (started_runs.h); here only that
    // both are named.
    if (request.started_by().run_id().empty() || request.started_by().task_id().empty()) {
      return absl::InvalidArgumentError(
          "started_by needs both run_id and task_id: the run and task of the running task that "
          "starts this run (TASKBOARD_RUN_ID and TASKBOARD_TASK_ID in its agent's environment)");
    }
    submit.started_by =
        engine::StartedBy{request.started_by().run_id(), request.started_by().task_id()};
  }
  return submit;
}

}  // namespace taskboard::server
