#ifndef TASKBOARD_COMMON_METRICS_PROGRAMMER_ERROR_H_
#define TASKBOARD_COMMON_METRICS_PROGRAMMER_ERROR_H_

// How the metrics module fails on a programmer error: a metric, label or
// bucket layout that is a constant in the code and is wrong. Those are fixed
// by editing the code, not handled at run time, so the process stops with the
// message (the Envoy rule: crash on broken invariants). Names that come from
// configuration go through the absl::Status APIs instead (TryRegister).

#include "absl/strings/string_view.h"

namespace taskboard::metrics {

// Writes "taskboard metrics: <message>" to stderr and aborts.
[[noreturn]] void DieOnProgrammerError(absl::string_view message);

}  // namespace taskboard::metrics

#endif  // TASKBOARD_COMMON_METRICS_PROGRAMMER_ERROR_H_
