// The FlowState built-ins (docs/agents-llm.md#flowstate-tools,
// docs/mcp.md#flowstate): flow_state reads where the call runs, state_get /
// state_set / state_delete / state_list the root run's storage through the
// scheduler. None is cacheable: each answer is about the calling task, and
// a write must happen every time.

#include <map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "worker/tools/builtin_tools.h"
#include "worker/tools/flow_state.h"
#include "worker/tools/tool_args.h"

namespace taskboard::worker {
namespace {

enum class Kind { kFlowState, kGet, kSet, kDelete, kList };

constexpr char kSpaceSchema[] = R"json({"type": "string", "enum": ["storage", "context"],
  "description": "storage (text values, the default) or context (JSON values)"})json";

struct Spec {
  const char* name;
  const char* description;
  const char* properties;
  const char* required;
};

Spec SpecOf(Kind kind) {
  switch (kind) {
    case Kind::kFlowState:
      return {"flow_state",
              "Where this call runs: {run_id, task_id, root_run_id, parent_run_id, is_child, "
              "attempt, agent, turn}; with conversation: true also the last messages of the "
              "conversation so far (max_messages, default 20).",
              R"({"conversation": {"type": "boolean"},
                  "max_messages": {"type": "integer", "minimum": 1, "maximum": 200}})",
              "[]"};
    case Kind::kGet:
      return {"state_get",
              "Reads a value of the run's durable storage, shared by the whole run and its "
              "child runs. Returns {key, space, found, value}.",
              R"({"key": {"type": "string"}, "space": SPACE})", R"(["key"])"};
    case Kind::kSet:
      return {"state_set",
              "Writes a value into the run's durable storage (kept across tasks, child runs "
              "and restarts). In the storage space the value is text; in context, any JSON.",
              R"({"key": {"type": "string"}, "value": {}, "space": SPACE})", R"(["key", "value"])"};
    case Kind::kDelete:
      return {"state_delete", "Deletes a value of the run's durable storage.",
              R"({"key": {"type": "string"}, "space": SPACE})", R"(["key"])"};
    case Kind::kList:
      return {"state_list",
              "Lists every key and value of one space of the run's durable storage: "
              "{space, entries}.",
              R"({"space": SPACE})", "[]"};
  }
  return {};
}

std::string WithSpace(std::string text) {
  const std::string marker = "SPACE";
  if (size_t at = text.find(marker); at != std::string::npos)
    text.replace(at, marker.size(), kSpaceSchema);
  return text;
}

class FlowStateTool : public Tool {
 public:
  FlowStateTool(Kind kind, const BuiltinToolOptions& options) : kind_(kind), options_(options) {
    const Spec spec = SpecOf(kind);
    declaration_.set_name(spec.name);
    declaration_.set_description(spec.description);
    Json schema = {{"type", "object"},
                   {"properties", Json::parse(WithSpace(spec.properties))},
                   {"required", Json::parse(spec.required)},
                   {"additionalProperties", false}};
    declaration_.set_parameters_schema_json(DumpJson(schema));
    declaration_.set_cacheable(false);
  }

  const v1::ToolDeclaration& declaration() const override { return declaration_; }
  std::string source() const override { return "built-in"; }

  absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                      const ToolContext& context) const override {
    const FlowState* state = context.flow_state;
    if (state == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(name(), " works only inside a task a Taskboard worker runs"));
    }
    if (kind_ == Kind::kFlowState) return Describe(args_json, *state);
    if (state->storage == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat(name(), ": this worker has no scheduler to keep run storage"));
    }
    absl::StatusOr<Json> args = ParseToolArgs(args_json, {"key", "value", "space"});
    if (!args.ok()) return args.status();
    absl::StatusOr<std::optional<std::string>> space = OptionalStringArg(*args, "space");
    if (!space.ok()) return space.status();
    const std::string space_name = space->value_or("storage");
    std::string key;
    if (kind_ != Kind::kList) {
      absl::StatusOr<std::string> read = RequiredStringArg(*args, "key");
      if (!read.ok()) return read.status();
      key = *std::move(read);
    }
    v1::RunStateRequest request = state->Request(Op());
    request.set_space(space_name);
    request.set_key(key);
    if (kind_ == Kind::kSet) {
      auto value = args->find("value");
      if (value == args->end()) {
        return absl::InvalidArgumentError("state_set needs a \"value\"");
      }
      if (space_name == "context") {
        request.set_value(DumpJson(*value));
      } else if (value->is_string()) {
        request.set_value(value->get<std::string>());
      } else {
        return absl::InvalidArgumentError(
            "in the storage space a value is text: pass a string, or use space \"context\" "
            "for JSON values");
      }
    }
    absl::StatusOr<v1::RunStateResponse> response = state->storage->Call(request);
    if (!response.ok()) return response.status();
    auto value_json = [&space_name](const std::string& text) -> Json {
      if (space_name != "context") return text;
      std::optional<Json> parsed = TryParseJson(text);
      return parsed.has_value() ? *std::move(parsed) : Json(text);
    };
    Json out = {{"space", space_name}};
    switch (kind_) {
      case Kind::kGet:
        out["key"] = key;
        out["found"] = response->found();
        out["value"] = response->found() ? value_json(response->value()) : Json(nullptr);
        break;
      case Kind::kSet:
        out["key"] = key;
        out["run_keys"] = response->run_keys();
        out["run_bytes"] = response->run_bytes();
        break;
      case Kind::kDelete:
        out["key"] = key;
        out["deleted"] = response->found();
        break;
      case Kind::kList: {
        Json entries = Json::object();
        // In key order (a proto map has none).
        const std::map<std::string, std::string> sorted(response->entries().begin(),
                                                        response->entries().end());
        for (const auto& [k, v] : sorted) entries[k] = value_json(v);
        out["entries"] = std::move(entries);
        break;
      }
      case Kind::kFlowState:
        break;
    }
    return DumpJson(out);
  }

 private:
  v1::RunStateRequest::Op Op() const {
    switch (kind_) {
      case Kind::kGet:
        return v1::RunStateRequest::OP_GET;
      case Kind::kSet:
        return v1::RunStateRequest::OP_SET;
      case Kind::kDelete:
        return v1::RunStateRequest::OP_DELETE;
      case Kind::kList:
        return v1::RunStateRequest::OP_LIST;
      case Kind::kFlowState:
        break;
    }
    return v1::RunStateRequest::OP_UNSPECIFIED;
  }

  absl::StatusOr<std::string> Describe(absl::string_view args_json, const FlowState& state) const {
    absl::StatusOr<Json> args = ParseToolArgs(args_json, {"conversation", "max_messages"});
    if (!args.ok()) return args.status();
    Json out = state.IdentityJson();
    auto wanted = args->find("conversation");
    if (wanted == args->end() || *wanted != true) return DumpJson(out);
    size_t max_messages = 20;
    if (auto it = args->find("max_messages"); it != args->end()) {
      if (!it->is_number_integer() || *it < 1 || *it > 200) {
        return absl::InvalidArgumentError("max_messages must be an integer from 1 to 200");
      }
      max_messages = it->get<size_t>();
    }
    bool truncated = false;
    out["conversation"] =
        state.conversation != nullptr
            ? state.conversation->Tail(max_messages, options_.conversation_max_bytes, &truncated)
            : Json::array();
    out["conversation_truncated"] = truncated;
    return DumpJson(out);
  }

  const Kind kind_;
  const BuiltinToolOptions options_;
  v1::ToolDeclaration declaration_;
};

}  // namespace

std::vector<std::unique_ptr<Tool>> FlowStateTools(const BuiltinToolOptions& options) {
  std::vector<std::unique_ptr<Tool>> tools;
  for (Kind kind : {Kind::kFlowState, Kind::kGet, Kind::kSet, Kind::kDelete, Kind::kList}) {
    tools.push_back(std::make_unique<FlowStateTool>(kind, options));
  }
  return tools;
}

}  // namespace taskboard::worker
