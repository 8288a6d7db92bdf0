#include "scheduler/mcp/taskboard_tools.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/mcp/argument_check.h"
#include "google/protobuf/descriptor.h"
#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::mcp {
namespace {

// Bounds on what a client may send in one argument, well under the
// scheduler's own limits, so a hostile argument is refused here.
constexpr int kMaxIdBytes = 256;
constexpr int kMaxTextBytes = 64 << 10;

Json StringProperty(absl::string_view description, int max_length = kMaxIdBytes) {
  return {{"type", "string"}, {"description", std::string(description)}, {"maxLength", max_length}};
}

Json ObjectSchema(Json properties, Json required) {
  return {{"type", "object"},
          {"properties", std::move(properties)},
          {"required", std::move(required)},
          {"additionalProperties", false}};
}

Json VersionProperty() {
  return {{"type", "integer"},
          {"minimum", 0},
          {"description", "The saved flow's version; 0 or absent: the latest"}};
}

std::vector<ToolDescription> Describe(int max_wait_seconds) {
  return {
      {"list_flows",
       "List the saved flows this token may run, with their arguments. Use describe_flow for one "
       "flow's source, then run_flow to start it.",
       ObjectSchema({{"page_size",
                      {{"type", "integer"},
                       {"minimum", 1},
                       {"maximum", 1000},
                       {"description", "Flows per page (default: the scheduler's)"}}},
                     {"page_token", StringProperty("next_page_token of the previous page")}},
                    Json::array())},
      {"describe_flow",
       "Describe a saved flow: its description, arguments (name, required, default) and the DSL "
       "source it was saved from.",
       ObjectSchema(
           {{"name", StringProperty("The saved flow's name")}, {"version", VersionProperty()}},
           {"name"})},
      {"run_flow",
       absl::StrCat("Start a run of a saved flow with arguments. Returns the run id at once, or, "
                    "with wait_seconds, waits up to that long (at most ",
                    max_wait_seconds,
                    ") for the run to end and returns its status and output. A run still going "
                    "can be read later with get_run. Called by an agent inside a flow, the run is "
                    "a child of the agent's run: runs nest only so deep, and the child is "
                    "cancelled when the agent's run ends, so wait for it if you need its output."),
       ObjectSchema(
           {{"name", StringProperty("The saved flow's name")},
            {"version", VersionProperty()},
            {"args",
             {{"type", "object"},
              {"description", "The flow's arguments by name (see describe_flow)"}}},
            {"wait_seconds",
             {{"type", "integer"},
              {"minimum", 0},
              {"maximum", max_wait_seconds},
              {"description", "Wait this long for the run to end (default 0: do not wait)"}}},
            {"idempotency_key",
             StringProperty("A second run_flow with the same key returns the first run")}},
           {"name"})},
      {"get_run", "Read a run's status, progress (tasks done of total), output and error.",
       ObjectSchema({{"run_id", StringProperty("The run's id")}}, {"run_id"})},
      {"cancel_run",
       "Cancel a run: no new tasks start, running ones are cancelled, the run ends cancelled.",
       ObjectSchema({{"run_id", StringProperty("The run's id")},
                     {"reason", StringProperty("Why, recorded with the run", kMaxTextBytes)}},
                    {"run_id"})},
      {"list_approvals",
       "List the approval steps waiting for a decision in the runs this token may see, oldest "
       "first, with their prompt, choices and form.",
       ObjectSchema(Json::object(), Json::array())},
      {"decide_approval",
       "Decide a waiting approval step (see list_approvals): approve, reject, or pick a choice.",
       ObjectSchema({{"run_id", StringProperty("The run's id")},
                     {"step_id", StringProperty("The approval step's id")},
                     {"decision",
                      {{"type", "string"},
                       {"enum", {"approve", "reject", "choice"}},
                       {"description", "approve, reject, or choice (then `choice` names it)"}}},
                     {"choice", StringProperty("With decision choice: one of the step's choices")},
                     {"values",
                      {{"type", "object"},
                       {"additionalProperties", {{"type", "string"}, {"maxLength", kMaxTextBytes}}},
                       {"description", "The approval form's values by field name"}}},
                     {"comment", StringProperty("Recorded with the decision", kMaxTextBytes)}},
                    {"run_id", "step_id", "decision"})},
  };
}

// A refused or failed Scheduler call as a tool error.
ToolResult CallFailed(absl::string_view tool, const absl::Status& status) {
  return ToolResult::Error(absl::StrCat(tool, " failed: ", absl::StatusCodeToString(status.code()),
                                        ": ", status.message()));
}

ToolResult Answer(Json structured) {
  std::string text = DumpJsonPretty(structured);
  return ToolResult{std::move(text), std::move(structured), false};
}

std::string StringOr(const Json& object, const char* key, std::string fallback = "") {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : fallback;
}

// The running task that calls run_flow, as SubmitRunRequest.started_by in
// JSON, or null: the call's FlowState `_meta` when it names a run and task,
// else the task this server was started for (TaskboardToolsOptions).
Json StartedBy(const Json& meta, const TaskboardToolsOptions& options) {
  std::string run_id = options.started_by_run_id;
  std::string task_id = options.started_by_task_id;
  if (meta.is_object()) {
    auto state = meta.find("taskboard/flow_state");
    if (state != meta.end() && state->is_object()) {
      std::string meta_run = StringOr(*state, "run_id");
      std::string meta_task = StringOr(*state, "task_id");
      if (!meta_run.empty() && !meta_task.empty()) {
        run_id = std::move(meta_run);
        task_id = std::move(meta_task);
      }
    }
  }
  if (run_id.empty() || task_id.empty()) return nullptr;
  return Json{{"runId", std::move(run_id)}, {"taskId", std::move(task_id)}};
}

// An int64 field: protobuf's JSON mapping writes it as a string.
int64_t Int64Of(const Json& object, const char* key) {
  auto found = object.find(key);
  if (found == object.end()) return 0;
  if (found->is_number_integer()) return found->get<int64_t>();
  int64_t value = 0;
  if (found->is_string() && absl::SimpleAtoi(found->get<std::string>(), &value)) return value;
  return 0;
}

Json FlowArgs(const Json& spec) {
  Json args = Json::array();
  for (const Json& arg : spec.value("args", Json::array())) {
    Json out = {{"name", StringOr(arg, "name")},
                {"required", arg.value("required", false)},
                {"description", StringOr(arg, "description")}};
    if (auto value = arg.find("defaultValue"); value != arg.end()) out["default"] = *value;
    args.push_back(std::move(out));
  }
  return args;
}

// The kind as the spec's JSON spells it: the name of the `kind` oneof field
// it sets ("planAndExecute"), found through the one table of flow kinds.
std::string FlowKind(const Json& spec) {
  const google::protobuf::Descriptor* descriptor = v1::FlowSpec::descriptor();
  for (const flow::FlowKindInfo* kind : flow::AllFlowKinds()) {
    const google::protobuf::FieldDescriptor* field = descriptor->FindFieldByNumber(kind->spec_case);
    if (field != nullptr && spec.contains(field->json_name())) return field->json_name();
  }
  return "";
}

Json FlowSummary(const Json& flow) {
  const Json spec = flow.value("spec", Json::object());
  return {{"name", StringOr(flow, "name")},
          {"version", Int64Of(flow, "version")},
          {"kind", FlowKind(spec)},
          {"description", StringOr(spec, "description")},
          {"args", FlowArgs(spec)}};
}

// RunStatus names as the API spells them (RUN_STATUS_COMPLETED), shortened.
std::string RunStatus(const Json& run) {
  std::string status = StringOr(run, "status", "RUN_STATUS_UNSPECIFIED");
  constexpr absl::string_view kPrefix = "RUN_STATUS_";
  if (absl::StartsWith(status, kPrefix))
    status = absl::AsciiStrToLower(status.substr(kPrefix.size()));
  return status;
}

bool Finished(const std::string& status) {
  return status == "completed" || status == "failed" || status == "blocked" ||
         status == "cancelled" || status == "paused" || status == "timed_out";
}

Json RunSummary(const Json& run) {
  const std::string status = RunStatus(run);
  Json out = {{"run_id", StringOr(run, "runId")},
              {"flow_name", StringOr(run, "flowName")},
              {"status", status},
              {"finished", Finished(status)},
              {"tasks_done", run.value("tasksDone", 0)},
              {"tasks_total", run.value("tasksTotal", 0)},
              {"output", StringOr(run, "output")},
              {"error", StringOr(run, "error")}};
  return out;
}

}  // namespace

TaskboardTools::TaskboardTools(SchedulerCalls& calls, TaskboardToolsOptions options)
    : calls_(calls), options_(options), descriptions_(Describe(options.max_wait_seconds)) {}

std::vector<ToolDescription> TaskboardTools::List() const { return descriptions_; }

bool TaskboardTools::Has(const std::string& name) const {
  for (const ToolDescription& tool : descriptions_) {
    if (tool.name == name) return true;
  }
  return false;
}

ToolResult TaskboardTools::Call(const std::string& name, const Json& arguments, const Json& meta) {
  for (const ToolDescription& tool : descriptions_) {
    if (tool.name != name) continue;
    if (absl::Status checked = CheckArguments(tool.input_schema, arguments); !checked.ok()) {
      return ToolResult::Error(
          absl::StrCat(name, ": ", checked.message(), " (see the tool's input schema)"));
    }
    if (name == "list_flows") return ListFlows(arguments);
    if (name == "describe_flow") return DescribeFlow(arguments);
    if (name == "run_flow") return RunFlow(arguments, meta);
    if (name == "get_run") return GetRun(arguments);
    if (name == "cancel_run") return CancelRun(arguments);
    if (name == "list_approvals") return ListApprovals(arguments);
    if (name == "decide_approval") return DecideApproval(arguments);
  }
  return ToolResult::Error(absl::StrCat("unknown tool '", name, "'"));
}

ToolResult TaskboardTools::ListFlows(const Json& arguments) {
  Json request = Json::object();
  if (arguments.contains("page_size")) request["pageSize"] = arguments["page_size"];
  if (arguments.contains("page_token")) request["pageToken"] = arguments["page_token"];
  absl::StatusOr<Json> response = calls_.Call("ListFlows", request);
  if (!response.ok()) return CallFailed("list_flows", response.status());
  Json flows = Json::array();
  for (const Json& flow : response->value("flows", Json::array()))
    flows.push_back(FlowSummary(flow));
  Json out = {{"flows", std::move(flows)}};
  if (std::string next = StringOr(*response, "nextPageToken"); !next.empty()) {
    out["next_page_token"] = next;
  }
  return Answer(std::move(out));
}

ToolResult TaskboardTools::DescribeFlow(const Json& arguments) {
  absl::StatusOr<Json> response = calls_.Call(
      "GetFlow", {{"name", arguments["name"]}, {"version", arguments.value("version", 0)}});
  if (!response.ok()) return CallFailed("describe_flow", response.status());
  const Json flow = response->value("flow", Json::object());
  Json out = FlowSummary(flow);
  out["source"] = StringOr(flow, "source");
  return Answer(std::move(out));
}

ToolResult TaskboardTools::RunFlow(const Json& arguments, const Json& meta) {
  Json request = {
      {"saved", {{"name", arguments["name"]}, {"version", arguments.value("version", 0)}}},
      {"args", arguments.value("args", Json::object())}};
  if (arguments.contains("idempotency_key")) {
    request["idempotencyKey"] = arguments["idempotency_key"];
  }
  if (Json started_by = StartedBy(meta, options_); !started_by.is_null()) {
    request["startedBy"] = std::move(started_by);
  }
  absl::StatusOr<Json> submitted = calls_.Call("SubmitRun", request);
  if (!submitted.ok()) return CallFailed("run_flow", submitted.status());
  const std::string run_id = StringOr(*submitted, "runId");
  const int wait_seconds = arguments.value("wait_seconds", 0);
  Json out = {{"run_id", run_id}, {"status", "pending"}, {"finished", false}};
  if (wait_seconds == 0) return Answer(std::move(out));
  // A unary poll rather than WatchRun: the tool answers once, and the
  // gateway's unary path is the one with the token checks the HTTP API has.
  const absl::Time deadline = absl::Now() + absl::Seconds(wait_seconds);
  while (true) {
    absl::StatusOr<Json> run = calls_.Call("GetRun", {{"runId", run_id}, {"withoutTasks", true}});
    if (!run.ok()) return CallFailed("run_flow", run.status());
    out = RunSummary(run->value("run", Json::object()));
    if (out["finished"].get<bool>() || absl::Now() + options_.poll_interval > deadline) break;
    absl::SleepFor(options_.poll_interval);
  }
  return Answer(std::move(out));
}

ToolResult TaskboardTools::GetRun(const Json& arguments) {
  absl::StatusOr<Json> run =
      calls_.Call("GetRun", {{"runId", arguments["run_id"]}, {"withoutTasks", true}});
  if (!run.ok()) return CallFailed("get_run", run.status());
  return Answer(RunSummary(run->value("run", Json::object())));
}

ToolResult TaskboardTools::CancelRun(const Json& arguments) {
  absl::StatusOr<Json> response = calls_.Call(
      "CancelRun", {{"runId", arguments["run_id"]}, {"reason", arguments.value("reason", "")}});
  if (!response.ok()) return CallFailed("cancel_run", response.status());
  return Answer({{"run_id", arguments["run_id"]}, {"status", RunStatus(*response)}});
}

ToolResult TaskboardTools::ListApprovals(const Json& /*arguments*/) {
  absl::StatusOr<Json> response = calls_.Call("ListApprovals", Json::object());
  if (!response.ok()) return CallFailed("list_approvals", response.status());
  Json approvals = Json::array();
  for (const Json& pending : response->value("approvals", Json::array())) {
    const Json approval = pending.value("approval", Json::object());
    approvals.push_back({{"run_id", StringOr(pending, "runId")},
                         {"step_id", StringOr(pending, "stepId")},
                         {"flow_name", StringOr(pending, "flowName")},
                         {"prompt", StringOr(approval, "prompt")},
                         {"choices", approval.value("choices", Json::array())},
                         {"form", approval.value("form", Json::array())},
                         {"approvers", approval.value("approvers", Json::array())}});
  }
  return Answer({{"approvals", std::move(approvals)}});
}

ToolResult TaskboardTools::DecideApproval(const Json& arguments) {
  Json request = {{"runId", arguments["run_id"]},
                  {"stepId", arguments["step_id"]},
                  {"decision", arguments["decision"]}};
  for (const auto& [from, to] : {std::pair{"choice", "choice"}, std::pair{"values", "values"},
                                 std::pair{"comment", "comment"}}) {
    if (arguments.contains(from)) request[to] = arguments[from];
  }
  absl::StatusOr<Json> response = calls_.Call("DecideApproval", request);
  if (!response.ok()) return CallFailed("decide_approval", response.status());
  const Json task = response->value("task", Json::object());
  return Answer({{"run_id", arguments["run_id"]},
                 {"step_id", arguments["step_id"]},
                 {"decided", true},
                 {"task_state", StringOr(task, "state")}});
}

}  // namespace taskboard::mcp
