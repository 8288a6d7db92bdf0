#include "worker/agents/task_envelope.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "worker/agents/prior_work_json.h"

namespace taskboard::worker {
namespace {

// Linux refuses to exec with any single NAME=value string over 128 KiB.
constexpr size_t kMaxEnvValueBytes = (128 << 10) - 64;

// A message in proto JSON, as a Json value (null if it cannot be rendered,
// which only happens for invalid UTF-8 that the scheduler never sends).
Json ProtoToJson(const google::protobuf::Message& message) {
  std::string text;
  if (!google::protobuf::util::MessageToJsonString(message, &text).ok()) return nullptr;
  absl::StatusOr<Json> json = ParseJson(text);
  return json.ok() ? *std::move(json) : Json(nullptr);
}

Json ArgsJson(const v1::Assignment& assignment) {
  return assignment.has_args() ? ProtoToJson(assignment.args()) : Json::object();
}

}  // namespace

Json TaskEnvelope(const v1::Assignment& assignment) {
  Json task = {
      {"id", assignment.task_id()},
      {"run_id", assignment.run_id()},
      {"root_run_id", assignment.root_run_id()},
      {"phase_id", assignment.phase_id()},
      {"item_index", assignment.item_index()},
      {"attempt", assignment.attempt()},
      {"agent", assignment.agent()},
      {"model", assignment.model()},
      {"role", assignment.role()},
  };
  Json dependencies = Json::array();
  for (const v1::DependencyResult& dep : assignment.dependency_results()) {
    dependencies.push_back(
        {{"id", dep.id()}, {"output", dep.output()}, {"success", dep.success()}});
  }
  return {
      {"task", std::move(task)},
      {"prompt", assignment.prompt()},
      {"prior_work", PriorWorkJson(assignment.prior_work())},
      {"dependency_results", std::move(dependencies)},
      {"args", ArgsJson(assignment)},
  };
}

std::vector<std::pair<std::string, std::string>> TaskEnvironment(const v1::Assignment& assignment) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"TASKBOARD_RUN_ID", assignment.run_id()},
      {"TASKBOARD_TASK_ID", assignment.task_id()},
      {"TASKBOARD_ATTEMPT", absl::StrCat(assignment.attempt())},
  };
  if (assignment.prompt().size() <= kMaxEnvValueBytes) {
    env.emplace_back("TASKBOARD_PROMPT", assignment.prompt());
  }
  std::string args = DumpJson(ArgsJson(assignment));
  if (args.size() <= kMaxEnvValueBytes) env.emplace_back("TASKBOARD_ARGS_JSON", std::move(args));
  return env;
}

}  // namespace taskboard::worker
