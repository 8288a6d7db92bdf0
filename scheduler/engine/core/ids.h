#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_IDS_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_IDS_H_

// Identifiers the scheduler mints: run ids that sort by creation time (so the
// runs column lists newest first with a reverse scan) and unguessable lease ids.

#include <cstdint>
#include <string>

#include "absl/random/random.h"

namespace taskboard::engine {

// "run-" + 10 Crockford base32 characters of the millisecond timestamp + 8
// random ones: byte order is creation order to the millisecond.
std::string NewRunId(int64_t now_ms, absl::BitGen& rng);

// "l-" + 16 hex characters.
std::string NewLeaseId(absl::BitGen& rng);

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_IDS_H_
