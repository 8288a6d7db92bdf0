#ifndef TASKBOARD_COMMON_LOG_LOGGER_H_
#define TASKBOARD_COMMON_LOG_LOGGER_H_

// The process-wide log settings and the one place lines are written. Lines go
// to stderr, one write per line under a mutex, so lines from different
// threads never interleave. Most code writes through the builder in log.h.
//
// Threading: every function may be called from any thread. Configure is
// meant for main(), before other threads log, but is safe at any time.

#include <functional>
#include <string>

#include "absl/strings/string_view.h"
#include "common/log/format.h"
#include "common/log/level.h"

namespace taskboard::log {

struct LogConfig {
  // Lines below this level are dropped before they are formatted.
  Level min_level = Level::kInfo;
  Format format = Format::kJson;
  // Written as "component" on every line ("scheduler", "worker"); empty: none.
  std::string component;
};

// Replaces the process-wide settings (the defaults above until called).
void Configure(LogConfig config);
LogConfig CurrentConfig();

// Whether a line at `level` would be written: one relaxed atomic load, so
// callers may use it to skip preparing expensive fields.
bool Enabled(Level level);

// Formats and writes one record (its component is filled in from the
// config). Does not check Enabled: the builder in log.h does that first.
void Write(Record record);

// Where formatted lines go (without the newline). Tests capture lines with
// it; null restores stderr. Returns the previous sink (null for stderr).
using Sink = std::function<void(absl::string_view line)>;
Sink SetSinkForTesting(Sink sink);

}  // namespace taskboard::log

#endif  // TASKBOARD_COMMON_LOG_LOGGER_H_
