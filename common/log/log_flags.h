#ifndef TASKBOARD_COMMON_LOG_LOG_FLAGS_H_
#define TASKBOARD_COMMON_LOG_LOG_FLAGS_H_

// The logging flags both services share:
//   --log-level  (TASKBOARD_LOG_LEVEL)  debug | info | warn | error | fatal
//   --log-format (TASKBOARD_LOG_FORMAT) json | text
// A bad value is a usage error reported by CLI11 before anything runs, e.g.
//   --log-level: unknown log level 'bogus'; use one of debug, info, warn, error, fatal

#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/string_view.h"
#include "common/log/logger.h"

namespace taskboard::log {

struct LogFlags {
  std::string level = "info";
  std::string format = "json";
};

// Declares --log-level and --log-format on `app`, writing into `flags`
// (which must outlive parsing) and validating the values.
void AddLogFlags(CLI::App& app, LogFlags* flags);

// Applies parsed flags to the process-wide logger, stamping every line with
// `component`. INVALID_ARGUMENT for a value AddLogFlags would have refused.
absl::Status ConfigureFromFlags(const LogFlags& flags, absl::string_view component);

}  // namespace taskboard::log

#endif  // TASKBOARD_COMMON_LOG_LOG_FLAGS_H_
