#include "tools/cli/run_command.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/random/random.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/proto_value.h"
#include "scheduler/flow/run_args.h"
#include "tools/cli/flow_error_report.h"
#include "tools/cli/flow_file.h"
#include "tools/cli/proto_json.h"
#include "tools/cli/rpc_call.h"
#include "tools/cli/saved_flow_lookup.h"

namespace taskboard::cli {
namespace {

constexpr absl::string_view kRunCommand = "taskboard run";

// The args as the user gave them, checked against the flow's declarations
// (required args, unknown names) exactly as the scheduler will check them.
int BuildArgs(const RunFlowOptions& options, const v1::FlowSpec& spec,
              v1::SubmitRunRequest* request, std::ostream& err) {
  absl::StatusOr<Json> given = flow::ParseCliArgs(options.args, spec);
  if (given.ok()) {
    if (absl::StatusOr<Json> bound = flow::BindRunArgs(spec, *given); !bound.ok()) {
      given = bound.status();
    }
  }
  if (!given.ok()) {
    const v1::FlowErrors errors = flow::FlowErrorsFromStatus(given.status());
    if (errors.errors_size() > 0) {
      PrintFlowErrors(kRunCommand, "invalid run args", errors, err);
    } else {
      err << kRunCommand << ": " << given.status().message() << "\n";
    }
    return 2;
  }
  *request->mutable_args() = flow::JsonToProtoValue(*given).struct_value();
  return 0;
}

int BuildLabels(const RunFlowOptions& options, v1::SubmitRunRequest* request, std::ostream& err) {
  for (const std::string& label : options.labels) {
    const size_t eq = label.find('=');
    if (eq == std::string::npos || eq == 0) {
      err << kRunCommand << ": --label takes key=value (got '" << label << "')\n";
      return 2;
    }
    (*request->mutable_labels())[label.substr(0, eq)] = label.substr(eq + 1);
  }
  return 0;
}

// The flow `options.flow` names: a file (its text is sent, so the
// scheduler's errors point at what the user wrote) or a saved flow, pinned to
// the version its args were checked against.
int ResolveFlow(const RunFlowOptions& options, SchedulerClient& client,
                v1::SubmitRunRequest* request, v1::FlowSpec* spec, std::ostream& err) {
  if (NamesFlowFile(options.flow)) {
    FlowFile file;
    if (int code = LoadFlowFile(kRunCommand, options.flow, &file, err); code != 0) return code;
    *request->mutable_source() = file.Source();
    *spec = std::move(file.spec);
    return 0;
  }
  v1::SavedFlow saved;
  if (int code = FetchSavedFlow(client, kRunCommand, options.flow, &saved, err); code != 0) {
    return code;
  }
  request->mutable_saved()->set_name(saved.name());
  request->mutable_saved()->set_version(saved.version());
  *spec = std::move(*saved.mutable_spec());
  return 0;
}

}  // namespace

std::string AutomaticIdempotencyKey() {
  absl::BitGen random;
  return absl::StrCat("cli-", absl::Hex(absl::Uniform<uint64_t>(random), absl::kZeroPad16),
                      absl::Hex(absl::Uniform<uint64_t>(random), absl::kZeroPad16));
}

int RunFlow(const RunFlowOptions& options, std::ostream& out, std::ostream& err) {
  SchedulerClient client(options.scheduler);
  v1::SubmitRunRequest request;
  v1::FlowSpec spec;
  if (int code = ResolveFlow(options, client, &request, &spec, err); code != 0) return code;
  request.set_session_id(options.session_id);
  if (int code = BuildArgs(options, spec, &request, err); code != 0) return code;
  if (int code = BuildLabels(options, &request, err); code != 0) return code;
  // Always set, not only on a retry: the first attempt may be the one that
  // made the run, and only a key it carried lets a retry find it.
  request.set_idempotency_key(options.idempotency_key.empty() ? AutomaticIdempotencyKey()
                                                              : options.idempotency_key);
  request.set_run_timeout_seconds(options.run_timeout_seconds);

  v1::SubmitRunResponse response;
  if (int code = CallScheduler(client, kRunCommand, &v1::Scheduler::Stub::SubmitRun, request,
                               &response, err);
      code != 0) {
    return code;
  }
  if (options.no_watch) {
    out << (options.follow.json ? ProtoToJsonLine(response) : response.run_id()) << "\n";
    err << "follow it with `taskboard watch " << response.run_id() << "`\n";
    return 0;
  }
  return FollowRun(client, kRunCommand, response.run_id(), options.follow, out, err);
}

void AddRunCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<RunFlowOptions>();
  options->follow.terminal = commands.err_terminal();
  CLI::App* command =
      app.add_subcommand("run",
                         "Submit a flow (a file or a saved flow's name) and follow the run "
                         "live until it finishes");
  command
      ->add_option("flow", options->flow,
                   "Flow file (JSON or YAML; a path that exists or ends in .yaml, .yml or .json), "
                   "- for standard input, or the name of a saved flow (`taskboard flows`)")
      ->required();
  command->add_option("args", options->args,
                      "Flow args: a JSON object, key=value pairs, or one value for the first "
                      "declared arg");
  command->add_flag("--json", options->follow.json,
                    "Print every run event as a JSON line, then the final run");
  command->add_option("--session", options->session_id,
                      "Session id (enables the `session` tool-cache scope across runs)");
  // One value per --label, so `run --label a=b flow.yaml` keeps the file.
  command->add_option("--label", options->labels, "Label the run: key=value (repeatable)")
      ->allow_extra_args(false);
  command->add_flag("--no-watch", options->no_watch, "Print the run id and return at once");
  command->add_option("--idempotency-key", options->idempotency_key,
                      "Submit at most once per key: a second submit with the same key answers "
                      "the first run (default: a fresh key, kept across retries)");
  command
      ->add_option("--run-timeout", options->run_timeout_seconds,
                   "End the whole run as timed_out after this many seconds (the flow's "
                   "runTimeoutSeconds wins when it is smaller)")
      ->check(CLI::Range(1, 30 * 24 * 3600));
  AddSchedulerOption(command, &options->scheduler);
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunFlow(*options, out, err);
  });
}

}  // namespace taskboard::cli
