#ifndef TASKBOARD_TOOLS_CLI_DISPLAY_FORMAT_H_
#define TASKBOARD_TOOLS_CLI_DISPLAY_FORMAT_H_

// Short human forms of the numbers the CLI shows (durations, token counts,
// costs, fan-out progress), in pi-taskflow's compact style so a phase row
// fits on one terminal line.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::cli {

// 850ms, 12.3s, 1m05s, 2h03m. Negative durations read as 0ms.
std::string FormatElapsed(absl::Duration duration);

// Coarse age for listings: 12s, 5m, 3h, 2d.
std::string FormatAge(absl::Duration age);

// 950, 1.2k, 38k, 1.2M.
std::string FormatTokens(int64_t tokens);

// $0.0021, $0.095, $1.25.
std::string FormatCost(double cost_usd);

// `↑in ↓out $cost`, each part only when non-zero; "" for empty usage.
std::string FormatUsage(const v1::Usage& usage);

// `text` on one line: whitespace runs (newlines included) become one space,
// leading and trailing whitespace is dropped. Agent output, errors and tool
// results span lines; a row or a listed call has one.
std::string OneLine(absl::string_view text);

// `[███░░░░░░░] 12/40`: `done` of `total` with a bar of `width` cells.
std::string ProgressBar(int done, int total, int width = 10);

// The instant a timestamp holds, or nullopt when it is unset (all zero).
std::optional<absl::Time> TimeFromProto(const google::protobuf::Timestamp& timestamp);

// How long something that started at `start` has taken: until `end`, or until
// `now` while it is still going. nullopt without a start.
std::optional<absl::Duration> Elapsed(const google::protobuf::Timestamp& start,
                                      const google::protobuf::Timestamp& end, absl::Time now);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_DISPLAY_FORMAT_H_
