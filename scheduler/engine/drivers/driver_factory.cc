#include "scheduler/engine/drivers/driver_factory.h"

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/engine/drivers/plan_execute_driver.h"
#include "scheduler/engine/drivers/supervisor_driver.h"
#include "scheduler/engine/drivers/taskflow_driver.h"
#include "scheduler/flow/flow_names.h"

namespace taskboard::engine {
namespace {

// One line per kind. A list rather than self-registration for the reason
// flow/kinds/flow_kinds.cc gives: a static library's unreferenced object
// file, and so its registrar, is dropped at link time. A board runs on the
// taskflow driver, as a taskflow of single-task phases (flow/kinds/board_kind.h).
constexpr std::pair<v1::FlowSpec::KindCase, MakeDriverFn> kDrivers[] = {
    {v1::FlowSpec::kTaskflow, &MakeTaskflowDriver},
    {v1::FlowSpec::kBoard, &MakeTaskflowDriver},
    {v1::FlowSpec::kPlanAndExecute, &MakePlanExecuteDriver},
    {v1::FlowSpec::kSupervisor, &MakeSupervisorDriver},
};

}  // namespace

MakeDriverFn DriverFactoryFor(v1::FlowSpec::KindCase kind_case) {
  for (const auto& [spec_case, make] : kDrivers) {
    if (spec_case == kind_case) return make;
  }
  return nullptr;
}

absl::StatusOr<std::unique_ptr<Driver>> MakeDriver(const v1::FlowSpec& spec,
                                                   const RunLimits& limits) {
  if (MakeDriverFn make = DriverFactoryFor(spec.kind_case()); make != nullptr) {
    return make(spec, limits);
  }
  return absl::UnimplementedError(
      absl::StrCat("flow '", spec.name(), "' has no kind this scheduler can run (",
                   flow::FlowKindName(spec), "); validate it with `taskboard validate`"));
}

}  // namespace taskboard::engine
