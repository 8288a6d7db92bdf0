#include "scheduler/server/flow_intake.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/flow/dsl_text.h"
#include "scheduler/flow/flow_loader.h"
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

absl::Status CheckTaskCount(const v1::FlowSpec& spec, const IntakeLimits& limits) {
  int count = spec.has_board() ? spec.board().tasks_size()
                               : (spec.has_taskflow() ? spec.taskflow().phases_size() : 0);
  if (count > limits.max_tasks_per_run) {
    return absl::ResourceExhaustedError(
        absl::StrCat("flow '", spec.name(), "' has ", count, " tasks, over the limit of ",
                     limits.max_tasks_per_run,
                     " per run (scheduler flag --max-tasks-per-run); split it into several runs"));
  }
  return absl::OkStatus();
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
  return flow::LoadFlowText(source.text(), FormatOf(source.format()));
}

absl::StatusOr<engine::SubmitRequest> PrepareSubmit(const v1::SubmitRunRequest& request,
                                                    const std::string& tenant,
                                                    engine::SavedFlows& saved,
                                                    const IntakeLimits& limits) {
  int64_t args_size = static_cast<int64_t>(request.args().ByteSizeLong());
  if (args_size > limits.max_args_bytes) {
    return TooLarge("the run's args", args_size, limits.max_args_bytes, "--max-args-bytes");
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
  if (absl::Status count = CheckTaskCount(*spec, limits); !count.ok()) return count;

  absl::StatusOr<Json> args = flow::BindRunArgs(*spec, flow::ProtoStructToJson(request.args()));
  if (!args.ok()) return args.status();

  engine::SubmitRequest submit;
  submit.spec = *std::move(spec);
  submit.args = *std::move(args);
  submit.session_id = request.session_id();
  submit.idempotency_key = request.idempotency_key();
  for (const auto& [key, value] : request.labels()) submit.labels[key] = value;
  return submit;
}

}  // namespace taskboard::server
