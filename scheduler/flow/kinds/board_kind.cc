#include "scheduler/flow/kinds/board_kind.h"

#include <string>
#include <vector>

#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/json_write.h"
#include "scheduler/flow/template_check.h"

namespace taskboard::flow {
namespace {

void DecodeBoardTask(const Json& value, const std::string& path, v1::BoardTask* task,
                     FlowErrorList* errors) {
  JsonReader reader(value, path, errors);
  if (!reader.valid()) return;
  task->set_id(reader.String("id").value_or(""));
  task->set_agent(reader.String("agent").value_or(""));
  task->set_task(reader.String("task").value_or(""));
  for (std::string& dep : reader.StringList("deps")) task->add_deps(std::move(dep));
  task->set_priority(static_cast<int32_t>(reader.Int("priority", -1000000, 1000000).value_or(0)));
  task->set_is_optional(reader.Bool("optional").value_or(false));
  if (auto retries = reader.Int("retries", 0, 100))
    task->set_retries(static_cast<int32_t>(*retries));
  task->set_timeout_seconds(
      static_cast<int32_t>(reader.Int("timeoutSeconds", 1, kMaxTimeoutSeconds).value_or(0)));
  reader.RejectUnknownFields();
}

void DecodeBoard(const Json& value, const std::string& path, v1::FlowSpec* spec,
                 FlowErrorList* errors) {
  v1::BoardSpec* board = spec->mutable_board();
  JsonReader reader(value, path, errors);
  board->set_concurrency(static_cast<int32_t>(reader.Int("concurrency", 1, 10000).value_or(0)));
  const Json* tasks = reader.Raw("tasks");
  if (reader.valid() && (tasks == nullptr || !tasks->is_array())) {
    errors->Add(reader.FieldPath("tasks"), "must be an array of {id, task, agent?, deps?}");
  } else if (tasks != nullptr) {
    for (size_t i = 0; i < tasks->size(); ++i) {
      DecodeBoardTask((*tasks)[i], IndexPath(reader.FieldPath("tasks"), i), board->add_tasks(),
                      errors);
    }
  }
  reader.RejectUnknownFields();
}

void DecodeBoardFlow(JsonReader&, const Json& block, const std::string& path, v1::FlowSpec* spec,
                     FlowErrorList* errors) {
  DecodeBoard(block, path, spec, errors);
}

Json EncodeBoard(const v1::BoardSpec& board) {
  Json out = Json::object();
  SetInt(out, "concurrency", board.concurrency());
  Json tasks = Json::array();
  for (const v1::BoardTask& task : board.tasks()) {
    Json t = {{"id", task.id()}};
    SetString(t, "agent", task.agent());
    SetString(t, "task", task.task());
    if (!task.deps().empty()) t["deps"] = Strings(task.deps());
    SetInt(t, "priority", task.priority());
    if (task.is_optional()) t["optional"] = true;
    if (task.has_retries()) t["retries"] = task.retries();
    SetInt(t, "timeoutSeconds", task.timeout_seconds());
    tasks.push_back(std::move(t));
  }
  out["tasks"] = std::move(tasks);
  return out;
}

void EncodeBoardFlow(const v1::FlowSpec& spec, Json& out) {
  out["board"] = EncodeBoard(spec.board());
}

std::vector<std::string> BoardDependencies(const v1::BoardTask& task) {
  return {task.deps().begin(), task.deps().end()};
}

void ValidateBoard(const v1::BoardSpec& board, const absl::flat_hash_set<std::string>& args,
                   FlowErrorList* errors) {
  const std::string list_path = "board.tasks";
  if (board.tasks().empty()) {
    errors->Add(list_path, "a board needs at least one task");
    return;
  }
  const absl::flat_hash_set<std::string> ids = CheckIds(board.tasks(), list_path, "task", errors);
  std::vector<DagNode> nodes;
  for (int i = 0; i < board.tasks_size(); ++i) {
    const v1::BoardTask& task = board.tasks(i);
    const std::string path = IndexPath(list_path, i);
    // Broken tasks stay in `nodes` (without id or deps) so that node i is
    // task i, which CheckCycle's path relies on.
    nodes.push_back({task.id(), BoardDependencies(task)});
    if (errors->IsBroken(path)) continue;
    if (task.task().empty())
      AddMissing(errors, JoinPath(path, "task"), "a board task needs a task");
    CheckDepList(task.deps(), JoinPath(path, "deps"), ids, "task", errors);
  }
  CheckCycle(nodes, list_path, "deps", errors);
  const DagIndex graph(nodes);
  for (int i = 0; i < board.tasks_size(); ++i) {
    const v1::BoardTask& task = board.tasks(i);
    const std::string path = IndexPath(list_path, i);
    if (errors->IsBroken(path)) continue;
    TemplateScope scope{&args,
                        &ids,
                        ReadsSteps(task.task()) ? graph.UpstreamClosure(task.id())
                                                : absl::flat_hash_set<std::string>(),
                        !task.deps().empty(),
                        "",
                        "task"};
    CheckTemplate(task.task(), JoinPath(path, "task"), scope, errors);
  }
}

void ValidateBoardFlow(const v1::FlowSpec& spec, const absl::flat_hash_set<std::string>& args,
                       FlowErrorList* errors) {
  ValidateBoard(spec.board(), args, errors);
}

void VisitBoardAgents(v1::FlowSpec* spec, const AgentVisit& visit) {
  for (int i = 0; i < spec->board().tasks_size(); ++i) {
    VisitAgent(absl::StrCat("board.tasks[", i, "].agent"),
               spec->mutable_board()->mutable_tasks(i)->mutable_agent(), visit);
  }
}

DeclaredBounds BoardBounds(const v1::FlowSpec& spec) {
  DeclaredBounds bounds;
  bounds.tasks = spec.board().tasks_size();
  return bounds;
}

std::vector<FlowRole> BoardRoles(const v1::FlowSpec&) { return {}; }

v1::TaskflowSpec BoardFlowAsTaskflow(const v1::FlowSpec& spec) {
  return BoardAsTaskflow(spec.board());
}

// A board's task list is in its driver and in the store (GetRun), so a third
// copy is not kept while the run is active: it was a sixth of a pending board
// task's memory.
void DropBoardTasks(v1::FlowSpec* spec) {
  // Swapped out, not cleared: a cleared repeated field keeps its elements.
  google::protobuf::RepeatedPtrField<v1::BoardTask> tasks;
  tasks.Swap(spec->mutable_board()->mutable_tasks());
}

}  // namespace

v1::Phase BoardTaskAsPhase(const v1::BoardTask& task) {
  v1::Phase phase;
  phase.set_id(task.id());
  phase.set_type(v1::PHASE_TYPE_AGENT);
  phase.set_agent(task.agent());
  phase.set_task(task.task());
  *phase.mutable_depends_on() = task.deps();
  phase.set_is_optional(task.is_optional());
  if (task.has_retries()) phase.set_retries(task.retries());
  phase.set_timeout_seconds(task.timeout_seconds());
  return phase;
}

v1::TaskflowSpec BoardAsTaskflow(const v1::BoardSpec& board) {
  v1::TaskflowSpec flow;
  flow.set_concurrency(board.concurrency());
  for (const v1::BoardTask& task : board.tasks()) *flow.add_phases() = BoardTaskAsPhase(task);
  return flow;
}

const FlowKindInfo kBoardKind = {
    .spec_case = v1::FlowSpec::kBoard,
    .run_kind = v1::FLOW_KIND_BOARD,
    .name = "board",
    .block = "board",
    .is_pattern = false,
    .has_phases = false,
    .decode = &DecodeBoardFlow,
    .encode = &EncodeBoardFlow,
    .validate = &ValidateBoardFlow,
    .visit_agents = &VisitBoardAgents,
    .declared_bounds = &BoardBounds,
    .roles = &BoardRoles,
    .as_taskflow = &BoardFlowAsTaskflow,
    .strip_for_active = &DropBoardTasks,
};

}  // namespace taskboard::flow
