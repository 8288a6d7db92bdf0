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
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_loader.h"
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

const char* KindName(const v1::FlowSpec& spec) {
  switch (spec.kind_case()) {
    case v1::FlowSpec::kPlanAndExecute:
      return "plan_and_execute";
    case v1::FlowSpec::kSupervisor:
      return "supervisor";
    case v1::FlowSpec::kBoard:
      return "board";
    default:
      return "taskflow";
  }
}

const char* PhaseTypeName(v1::PhaseType type) {
  switch (type) {
    case v1::PHASE_TYPE_PARALLEL:
      return "parallel";
    case v1::PHASE_TYPE_MAP:
      return "map";
    case v1::PHASE_TYPE_GATE:
      return "gate";
    case v1::PHASE_TYPE_REDUCE:
      return "reduce";
    default:
      return "agent";
  }
}

void PrintLayers(const v1::TaskflowSpec& flow, std::ostream& out) {
  const std::vector<std::vector<std::string>> layers = flow::PhaseLayers(flow);
  const std::string final_id = flow::FinalPhaseId(flow);
  absl::flat_hash_map<std::string, const v1::Phase*> by_id;
  size_t width = 0;
  for (const v1::Phase& phase : flow.phases()) {
    by_id[phase.id()] = &phase;
    width = std::max(width, phase.id().size());
  }
  out << "\nlayers:\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    for (size_t j = 0; j < layers[i].size(); ++j) {
      const v1::Phase& phase = *by_id.at(layers[i][j]);
      // pi-taskflow's rails: the phases of one layer run concurrently.
      const char* rail = layers[i].size() == 1       ? " "
                         : j == 0                    ? "┌"
                         : j + 1 == layers[i].size() ? "└"
                                                     : "├";
      std::string line =
          absl::StrFormat("  %-4s%s %-*s  %-8s", j == 0 ? absl::StrCat(i) : "", rail,
                          static_cast<int>(width), phase.id(), PhaseTypeName(phase.type()));
      if (!phase.agent().empty()) absl::StrAppend(&line, "  agent=", phase.agent());
      if (phase.type() == v1::PHASE_TYPE_PARALLEL) {
        absl::StrAppend(&line, "  branches=", phase.branches_size());
      }
      if (phase.type() == v1::PHASE_TYPE_MAP) absl::StrAppend(&line, "  over=", phase.over());
      const std::vector<std::string> deps = flow::PhaseDependencies(phase);
      if (!deps.empty()) absl::StrAppend(&line, "  <- ", absl::StrJoin(deps, ", "));
      if (phase.is_optional()) absl::StrAppend(&line, "  (optional)");
      if (phase.id() == final_id) absl::StrAppend(&line, "  [final]");
      out << line << "\n";
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
  out << "valid: " << spec->name() << " (" << KindName(*spec);
  if (spec->has_taskflow()) {
    out << ", " << spec->taskflow().phases_size()
        << (spec->taskflow().phases_size() == 1 ? " phase" : " phases");
  }
  if (spec->has_board()) out << ", " << spec->board().tasks_size() << " tasks";
  out << ")\n";
  if (spec->has_taskflow()) PrintLayers(spec->taskflow(), out);
  if (!options.quiet)
    out << "\ndesugared flow:\n" << DumpJsonPretty(flow::EncodeFlow(*spec)) << "\n";
  return 0;
}

}  // namespace taskboard::cli
