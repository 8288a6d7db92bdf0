#ifndef TASKBOARD_TOOLS_CLI_TRIGGERS_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_TRIGGERS_COMMAND_H_

// `taskboard triggers [list|create|update|describe|deliveries|delete]`: runs
// that start when an event arrives (docs/schedules.md#event-triggers). Bare
// `triggers` lists them. `create` and `update` check the file locally first,
// like `schedules create`.

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "taskboard/v1/triggers.pb.h"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct TriggersOptions {
  std::string path;   // create, update: trigger file or -
  std::string name;   // the others
  bool json = false;  // list, describe, deliveries, create: the API message as JSON
  std::string scheduler;
  int width = 0;  // of standard output; 0 = no limit
};

// Exit codes: 0 done; 1 an invalid file, an unknown trigger, or refused by
// the scheduler; 2 an unreadable file or no scheduler.
int RunTriggersList(const TriggersOptions& options, std::ostream& out, std::ostream& err);
int RunTriggersCreate(const TriggersOptions& options, std::ostream& out, std::ostream& err);
int RunTriggersUpdate(const TriggersOptions& options, std::ostream& out, std::ostream& err);
int RunTriggersDescribe(const TriggersOptions& options, std::ostream& out, std::ostream& err);
int RunTriggersDeliveries(const TriggersOptions& options, std::ostream& out, std::ostream& err);
int RunTriggersDelete(const TriggersOptions& options, std::ostream& out, std::ostream& err);

// What `describe` and `deliveries` print (separate for tests).
void PrintTrigger(const v1::Trigger& trigger, int width, std::ostream& out);
void PrintDeliveries(const google::protobuf::RepeatedPtrField<v1::TriggerDelivery>& deliveries,
                     int width, std::ostream& out);

void AddTriggersCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TRIGGERS_COMMAND_H_
