#ifndef TASKBOARD_TOOLS_CLI_SCHEDULE_TEXT_H_
#define TASKBOARD_TOOLS_CLI_SCHEDULE_TEXT_H_

// How `taskboard schedules` and `taskboard triggers` write times and run
// statuses in their tables (docs/cli.md).

#include <string>

#include "google/protobuf/timestamp.pb.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::cli {

// RFC 3339 in UTC; "-" for an unset time.
std::string TimeText(const google::protobuf::Timestamp& stamp);
// "running", "succeeded", ...; "-" for none.
std::string RunStatusText(v1::RunStatus status);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SCHEDULE_TEXT_H_
