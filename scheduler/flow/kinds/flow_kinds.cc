#include "scheduler/flow/kinds/board_kind.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/kinds/plan_execute_kind.h"
#include "scheduler/flow/kinds/supervisor_kind.h"
#include "scheduler/flow/kinds/taskflow_kind.h"

namespace taskboard::flow {
namespace {

// The table. A list rather than self-registration: flow/ is a static
// library, and the linker drops an object file nobody references, so a kind
// registering itself from a static initializer could vanish from a binary.
const FlowKindInfo* const kFlowKinds[] = {&kTaskflowKind, &kPlanExecuteKind, &kSupervisorKind,
                                          &kBoardKind};

}  // namespace

absl::Span<const FlowKindInfo* const> AllFlowKinds() { return kFlowKinds; }

const FlowKindInfo* FindFlowKind(const v1::FlowSpec& spec) {
  for (const FlowKindInfo* kind : kFlowKinds) {
    if (kind->spec_case == spec.kind_case()) return kind;
  }
  return nullptr;
}

const FlowKindInfo* FindFlowKind(v1::FlowKind run_kind) {
  for (const FlowKindInfo* kind : kFlowKinds) {
    if (kind->run_kind == run_kind) return kind;
  }
  return nullptr;
}

const FlowKindInfo* FindFlowKindByName(absl::string_view name) {
  for (const FlowKindInfo* kind : kFlowKinds) {
    if (kind->name == name) return kind;
  }
  return nullptr;
}

v1::FlowKind RunKindOf(const v1::FlowSpec& spec) {
  const FlowKindInfo* kind = FindFlowKind(spec);
  return kind == nullptr ? v1::FLOW_KIND_UNSPECIFIED : kind->run_kind;
}

}  // namespace taskboard::flow
