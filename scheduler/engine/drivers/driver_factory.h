#ifndef TASKBOARD_SCHEDULER_ENGINE_DRIVERS_DRIVER_FACTORY_H_
#define TASKBOARD_SCHEDULER_ENGINE_DRIVERS_DRIVER_FACTORY_H_

// The engine's half of a flow kind's declaration: which driver runs it. The
// flow half (name, DSL codecs, validation, bounds) is
// scheduler/flow/kinds/flow_kind.h, keyed by the same FlowSpec::KindCase;
// flow/ knows nothing of drivers (docs/design.md#adding-a-pattern-kind).
// MakeDriver (driver.h) reads this table.

#include <memory>

#include "scheduler/engine/drivers/driver.h"
#include "scheduler/engine/state/run_limits.h"
#include "taskboard/v1/flow.pb.h"

namespace taskboard::engine {

using MakeDriverFn = std::unique_ptr<Driver> (*)(const v1::FlowSpec& spec, const RunLimits& limits);

// The factory of the driver that runs `kind_case`; null when this scheduler
// has none (KIND_NOT_SET, or a kind added to the proto without its driver).
MakeDriverFn DriverFactoryFor(v1::FlowSpec::KindCase kind_case);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_DRIVERS_DRIVER_FACTORY_H_
