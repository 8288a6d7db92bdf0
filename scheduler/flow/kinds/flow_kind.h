#ifndef TASKBOARD_SCHEDULER_FLOW_KINDS_FLOW_KIND_H_
#define TASKBOARD_SCHEDULER_FLOW_KINDS_FLOW_KIND_H_

// What a flow kind is, declared once per kind in flow/kinds/<kind>_kind.cc.
// Everything that depends on the kind of a flow (the DSL decoder, encoder and
// validator, FlowKindName, the default agent, intake's limits, the run's
// kind, child runs' inherited policy, `taskboard validate`, the CLI's run
// view) asks this table rather than switching on FlowSpec::kind_case();
// docs/design.md#adding-a-pattern-kind lists what a new kind touches. The
// engine's half (which driver runs a kind) is engine/drivers/driver_factory.cc,
// keyed by the same FlowSpec::KindCase, so that flow/ knows nothing of
// drivers.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "common/json.h"
#include "scheduler/flow/default_agent.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"
#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::flow {

// What a flow declares up front that the scheduler bounds at intake
// (scheduler/server/flow_intake.cc) and `taskboard validate` shows.
struct DeclaredBounds {
  struct Parallel {
    std::string phase_id;
    int branches = 0;
  };
  struct Iterations {
    std::string path;  // DSL path of the field: "supervisor.maxIterations"
    int value = 0;
  };
  int tasks = 0;                       // declared tasks (phases, board tasks); 0 for patterns
  std::vector<Parallel> parallel;      // each phase with branches, in document order
  std::vector<Iterations> iterations;  // each maxIterations the flow sets
};

// One line of `taskboard validate`'s roles of a pattern flow: a role and its
// agent, or a `note` about how the roles after it run.
struct FlowRole {
  std::string name;
  std::string agent;
  std::string note;
};

struct FlowKindInfo {
  v1::FlowSpec::KindCase spec_case;  // FlowSpec::kBoard
  v1::FlowKind run_kind;             // FLOW_KIND_BOARD (Run.kind, metrics labels)
  absl::string_view name;            // "board": `kind:` in the DSL, FlowKindName
  absl::string_view block;           // "board"; "" for taskflow (phases at the top)
  bool is_pattern;                   // tasks are planned at run time (no phases)
  // Declares phases: `taskboard validate` counts them and the CLI's run view
  // draws and counts the run by them. A board is false: its runs store one
  // phase per task, but are shown by their tasks.
  bool has_phases;

  // DSL -> spec. `block` is the kind's block at `path` (for taskflow, the
  // whole document at ""); `root` reads the document's top level, so that
  // fields a kind reads there are not reported as unknown.
  void (*decode)(JsonReader& root, const Json& block, const std::string& path, v1::FlowSpec* spec,
                 FlowErrorList* errors);
  // Spec -> DSL: writes the kind's block (taskflow: its top-level fields).
  void (*encode)(const v1::FlowSpec& spec, Json& out);
  // The kind's own checks; `args` are the declared arg names.
  void (*validate)(const v1::FlowSpec& spec, const absl::flat_hash_set<std::string>& args,
                   FlowErrorList* errors);
  // Calls `visit` with the path and field of every agent the kind leaves
  // unset (default_agent.h).
  void (*visit_agents)(v1::FlowSpec* spec, const AgentVisit& visit);
  // What intake bounds (tasks per run, branches per phase, maxIterations).
  DeclaredBounds (*declared_bounds)(const v1::FlowSpec& spec);
  // The pattern roles, in the order `taskboard validate` prints them; empty
  // for kinds whose tasks are declared.
  std::vector<FlowRole> (*roles)(const v1::FlowSpec& spec);
  // The flow as the phase DAG it runs as, for its layers (ValidateFlow's
  // answer); null for kinds whose tasks are planned at run time.
  v1::TaskflowSpec (*as_taskflow)(const v1::FlowSpec& spec);
  // Drops what the engine need not keep while the run is active (the spec it
  // holds is read for the flow's settings only); null: kept whole.
  void (*strip_for_active)(v1::FlowSpec* spec);
};

// Every kind, in table order: the order DSL messages list them in
// ("use one of taskflow, plan_and_execute, supervisor, board").
absl::Span<const FlowKindInfo* const> AllFlowKinds();

// The kind of `spec`; null for KIND_NOT_SET.
const FlowKindInfo* FindFlowKind(const v1::FlowSpec& spec);
// The kind a run records (Run.kind); null for FLOW_KIND_UNSPECIFIED.
const FlowKindInfo* FindFlowKind(v1::FlowKind run_kind);
// The kind named `name` (`kind:` in the DSL); null when none is.
const FlowKindInfo* FindFlowKindByName(absl::string_view name);
// FLOW_KIND_UNSPECIFIED for a spec with no kind.
v1::FlowKind RunKindOf(const v1::FlowSpec& spec);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_KINDS_FLOW_KIND_H_
