#include "tools/cli/validate_command.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_loader.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/phase_graph.h"

namespace taskboard::cli {
namespace {

bool ReadInput(const std::string& path, std::string* text) {
  if (path == "-") {
    text->assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream buffer;
  buffer << file.rdbuf();
  *text = buffer.str();
  return true;
}

// One line of the layer listing: a phase or a board task.
struct LayerRow {
  std::string kind;    // phase type, or "task"
  std::string detail;  // agent, fan-out, dependencies, markers
};

// Prints nodes grouped by DAG layer with pi-taskflow's rails: the nodes of
// one layer can run concurrently.
void PrintLayers(const std::vector<std::vector<std::string>>& layers,
                 const absl::flat_hash_map<std::string, LayerRow>& rows, std::ostream& out) {
  size_t width = 0;
  for (const auto& [id, row] : rows) width = std::max(width, id.size());
  out << "\nlayers:\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    for (size_t j = 0; j < layers[i].size(); ++j) {
      const std::string& id = layers[i][j];
      const LayerRow& row = rows.at(id);
      const char* rail = layers[i].size() == 1       ? " "
                         : j == 0                    ? "┌"
                         : j + 1 == layers[i].size() ? "└"
                                                     : "├";
      out << absl::StrFormat("  %-4s%s %-*s  %-8s%s\n", j == 0 ? absl::StrCat(i) : "", rail,
                             static_cast<int>(width), id, row.kind, row.detail);
    }
  }
}

std::string DependencyDetail(const std::vector<std::string>& deps) {
  return deps.empty() ? "" : absl::StrCat("  <- ", absl::StrJoin(deps, ", "));
}

void PrintTaskflowLayers(const v1::TaskflowSpec& flow, std::ostream& out) {
  const std::string final_id = flow::FinalPhaseId(flow);
  absl::flat_hash_map<std::string, LayerRow> rows;
  for (const v1::Phase& phase : flow.phases()) {
    std::string detail;
    if (!phase.agent().empty()) absl::StrAppend(&detail, "  agent=", phase.agent());
    if (phase.type() == v1::PHASE_TYPE_PARALLEL) {
      absl::StrAppend(&detail, "  branches=", phase.branches_size());
    }
    if (phase.type() == v1::PHASE_TYPE_MAP) absl::StrAppend(&detail, "  over=", phase.over());
    absl::StrAppend(&detail, DependencyDetail(flow::PhaseDependencies(phase)));
    if (phase.is_optional()) absl::StrAppend(&detail, "  (optional)");
    if (phase.id() == final_id) absl::StrAppend(&detail, "  [final]");
    rows[phase.id()] = {std::string(flow::PhaseTypeName(phase.type())), detail};
  }
  PrintLayers(flow::PhaseLayers(flow), rows, out);
}

void PrintBoardLayers(const v1::BoardSpec& board, std::ostream& out) {
  absl::flat_hash_map<std::string, LayerRow> rows;
  std::vector<flow::DagNode> nodes;
  for (const v1::BoardTask& task : board.tasks()) {
    std::vector<std::string> deps(task.deps().begin(), task.deps().end());
    std::string detail;
    if (!task.agent().empty()) absl::StrAppend(&detail, "  agent=", task.agent());
    if (task.priority() != 0) absl::StrAppend(&detail, "  priority=", task.priority());
    absl::StrAppend(&detail, DependencyDetail(deps));
    if (task.is_optional()) absl::StrAppend(&detail, "  (optional)");
    rows[task.id()] = {"task", detail};
    nodes.push_back({task.id(), std::move(deps)});
  }
  PrintLayers(flow::TopologicalLayers(nodes), rows, out);
}

// Pattern flows get their tasks from the planner at run time; show the roles.
void PrintPatternRoles(const v1::FlowSpec& spec, std::ostream& out) {
  out << "\nroles (tasks are planned at run time):\n";
  auto role = [&out](absl::string_view name, const std::string& agent) {
    if (!agent.empty()) out << absl::StrFormat("  %-12s %s\n", name, agent);
  };
  auto supervisor_roles = [&role](const v1::SupervisorSpec& supervisor) {
    role("planner", supervisor.planner_agent());
    role("worker", supervisor.worker_agent());
    role("reviewer", supervisor.reviewer_agent());
    role("synthesizer", supervisor.synthesizer_agent());
  };
  if (spec.has_supervisor()) supervisor_roles(spec.supervisor());
  if (spec.has_plan_and_execute()) {
    const v1::PlanExecuteSpec& plan = spec.plan_and_execute();
    role("planner", plan.planner_agent());
    role("executor", plan.executor_agent());
    role("evaluator", plan.evaluator_agent());
    role("replanner", plan.replanner_agent());
    role("synthesizer", plan.synthesizer_agent());
    if (plan.has_step_executor()) {
      out << "  each step runs as a child supervisor run:\n";
      supervisor_roles(plan.step_executor());
    }
  }
}

}  // namespace

int RunValidate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  std::string text;
  if (!ReadInput(options.path, &text)) {
    err << "taskboard validate: cannot read '" << options.path
        << "': check the path and that the file is readable\n";
    return 2;
  }
  absl::StatusOr<v1::FlowSpec> spec =
      flow::LoadFlowText(text, flow::DslFormatFromPath(options.path));
  if (!spec.ok()) {
    const v1::FlowErrors errors = flow::FlowErrorsFromStatus(spec.status());
    err << options.path << ": invalid flow (" << errors.errors_size()
        << (errors.errors_size() == 1 ? " error" : " errors") << ")\n";
    for (const v1::FlowError& error : errors.errors()) {
      err << "  " << (error.path().empty() ? "(flow)" : error.path()) << ": " << error.message()
          << "\n";
    }
    return 1;
  }
  out << "valid: " << spec->name() << " (" << flow::FlowKindName(*spec);
  if (spec->has_taskflow()) {
    out << ", " << spec->taskflow().phases_size()
        << (spec->taskflow().phases_size() == 1 ? " phase" : " phases");
  }
  if (spec->has_board()) out << ", " << spec->board().tasks_size() << " tasks";
  out << ")\n";
  if (spec->has_taskflow()) PrintTaskflowLayers(spec->taskflow(), out);
  if (spec->has_board()) PrintBoardLayers(spec->board(), out);
  if (spec->has_plan_and_execute() || spec->has_supervisor()) PrintPatternRoles(*spec, out);
  if (!options.quiet)
    out << "\ndesugared flow:\n" << DumpJsonPretty(flow::EncodeFlow(*spec)) << "\n";
  return 0;
}

}  // namespace taskboard::cli
