#ifndef TASKBOARD_TOOLS_CLI_SCHEDULES_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_SCHEDULES_COMMAND_H_

// `taskboard schedules [list|create|update|describe|pause|unpause|trigger|
// backfill|delete]`: runs that start themselves (docs/schedules.md#cli).
// Bare `schedules` lists them. `create` and `update` check the file locally
// first, like `flows save`.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/time/time.h"
#include "taskboard/v1/schedules.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct SchedulesOptions {
  std::string path;     // create, update: schedule file or -
  std::string name;     // the others
  std::string note;     // pause, unpause
  std::string overlap;  // trigger, backfill: "" = the schedule's
  std::string from;     // backfill: RFC 3339
  std::string to;
  bool json = false;  // list, describe, create: the API message as JSON
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
};

// Exit codes: 0 done; 1 an invalid file or argument, an unknown schedule, or
// refused by the scheduler; 2 an unreadable file or no scheduler.
int RunSchedulesList(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesCreate(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesUpdate(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesDescribe(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesPause(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesUnpause(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesTrigger(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesBackfill(const SchedulesOptions& options, std::ostream& out, std::ostream& err);
int RunSchedulesDelete(const SchedulesOptions& options, std::ostream& out, std::ostream& err);

// What `describe` prints (separate for tests).
void PrintSchedule(const v1::Schedule& schedule, int width, std::ostream& out);

void AddSchedulesCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_SCHEDULES_COMMAND_H_
