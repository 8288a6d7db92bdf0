#ifndef TASKBOARD_SCHEDULER_WEB_CONSOLE_CONFIG_H_
#define TASKBOARD_SCHEDULER_WEB_CONSOLE_CONFIG_H_

// What the web console is told about its scheduler's setup
// (docs/console.md#trace-links), served at GET /console-config.json: for now
// where a run's trace can be seen. It holds no secret, so it needs no token
// (the console reads it before sign-in too); the Host check still applies.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace taskboard::web {

struct ConsoleOptions {
  // A URL with {trace_id} in it (--trace-url-template); empty: runs get no
  // trace link.
  std::string trace_url_template;
};

// OK for "" and for an http:// or https:// URL holding {trace_id}; otherwise
// INVALID_ARGUMENT naming the flag and what to write instead.
absl::Status CheckTraceUrlTemplate(absl::string_view url_template);

// The JSON object the console reads: {"traceUrlTemplate": "..."}.
std::string ConsoleConfigJson(const ConsoleOptions& options);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_CONSOLE_CONFIG_H_
