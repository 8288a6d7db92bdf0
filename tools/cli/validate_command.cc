#include "tools/cli/validate_command.h"

#include <memory>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "scheduler/flow/default_agent.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/phase_graph.h"
#include "scheduler/flow/phase_pattern.h"
#include "tools/cli/dag_rails.h"
#include "tools/cli/flow_file.h"

namespace taskboard::cli {
namespace {

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
      out << absl::StrFormat("  %-4s%s %-*s  %-8s%s\n", j == 0 ? absl::StrCat(i) : "",
                             RailGlyph(j, layers[i].size()), static_cast<int>(width), id, row.kind,
                             row.detail);
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
    if (phase.type() == v1::PHASE_TYPE_MAP) {
      absl::StrAppend(&detail, "  over=", phase.over());
      if (flow::IsPatternPhase(phase)) {
        absl::StrAppend(&detail, "  each item: ", phase.has_plan() ? "plan" : "supervise");
      }
    }
    absl::StrAppend(&detail, DependencyDetail(flow::PhaseDependencies(phase)));
    if (phase.is_optional()) absl::StrAppend(&detail, "  (optional)");
    if (phase.id() == final_id) absl::StrAppend(&detail, "  [final]");
    rows[phase.id()] = {std::string(flow::PhaseTypeSpelling(phase)), detail};
  }
  PrintLayers(flow::PhaseLayers(flow), rows, out);
}

void PrintBoardLayers(const v1::BoardSpec& board, std::ostream& out) {
  absl::flat_hash_map<std::string, LayerRow> rows;
  for (const v1::BoardTask& task : board.tasks()) {
    std::string detail;
    if (!task.agent().empty()) absl::StrAppend(&detail, "  agent=", task.agent());
    if (task.priority() != 0) absl::StrAppend(&detail, "  priority=", task.priority());
    absl::StrAppend(&detail, DependencyDetail({task.deps().begin(), task.deps().end()}));
    if (task.is_optional()) absl::StrAppend(&detail, "  (optional)");
    rows[task.id()] = {"task", detail};
  }
  PrintLayers(BoardTaskLayers(board), rows, out);
}

// Pattern flows get their tasks from the planner at run time; show the roles.
void PrintPatternRoles(const std::vector<flow::FlowRole>& roles, std::ostream& out) {
  out << "\nroles (tasks are planned at run time):\n";
  for (const flow::FlowRole& role : roles) {
    if (!role.note.empty()) {
      out << "  " << role.note << "\n";
    } else if (!role.agent.empty()) {
      out << absl::StrFormat("  %-12s %s\n", role.name, role.agent);
    }
  }
}

}  // namespace

int RunValidate(const ValidateOptions& options, std::ostream& out, std::ostream& err) {
  FlowFile file;
  if (int code = LoadFlowFile("taskboard validate", options.path, &file, err); code != 0) {
    return code;
  }
  const v1::FlowSpec& spec = file.spec;
  // A loaded flow is valid, and so has a kind (ValidateFlow).
  const flow::FlowKindInfo* kind = flow::FindFlowKind(spec);
  out << "valid: " << spec.name() << " (" << flow::FlowKindName(spec);
  if (kind != nullptr && !kind->is_pattern) {
    const int tasks = kind->declared_bounds(spec).tasks;
    if (kind->has_phases) {
      out << ", " << tasks << (tasks == 1 ? " phase" : " phases");
    } else {
      out << ", " << tasks << " tasks";
    }
  }
  out << ")\n";
  // The layers and roles show what the scheduler fills in at submit; which
  // agent is the default only the scheduler knows.
  v1::FlowSpec shown = spec;
  flow::FillFlowDefaults("(default agent)", &shown);
  if (shown.has_taskflow()) PrintTaskflowLayers(shown.taskflow(), out);
  if (shown.has_board()) PrintBoardLayers(shown.board(), out);
  if (kind != nullptr && kind->is_pattern) PrintPatternRoles(kind->roles(shown), out);
  if (!options.quiet)
    out << "\ndesugared flow:\n" << DumpJsonPretty(flow::EncodeFlow(spec)) << "\n";
  return 0;
}

void AddValidateCommand(CLI::App& app, CommandSet& commands) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "Check a flow file (JSON or YAML); print its DAG layers or every error");
  command->add_option("file", options->path, "Flow file, or - for standard input")->required();
  command->add_flag("-q,--quiet", options->quiet, "Print the summary and layers only");
  commands.Add(command, [options](std::ostream& out, std::ostream& err) {
    return RunValidate(*options, out, err);
  });
}

}  // namespace taskboard::cli
