#ifndef TASKBOARD_COMMON_FAILOVER_SCHEDULER_TARGETS_H_
#define TASKBOARD_COMMON_FAILOVER_SCHEDULER_TARGETS_H_

// The --scheduler value of the worker and the CLI: one address, several
// (one per scheduler replica: `a:7233,b:7233,c:7233`), or one gRPC target
// URI that a resolver expands (`dns:///scheduler:7233`), which is kept whole.
// docs/operations.md#clients-and-replicated-schedulers.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::failover {

// The targets in the order given, blanks trimmed and duplicates dropped.
// INVALID_ARGUMENT (naming the value) when it is empty or one of its
// comma-separated parts is.
absl::StatusOr<std::vector<std::string>> ParseSchedulerTargets(absl::string_view value);

}  // namespace taskboard::failover

#endif  // TASKBOARD_COMMON_FAILOVER_SCHEDULER_TARGETS_H_
