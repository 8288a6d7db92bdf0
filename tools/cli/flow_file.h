#ifndef TASKBOARD_TOOLS_CLI_FLOW_FILE_H_
#define TASKBOARD_TOOLS_CLI_FLOW_FILE_H_

// Reading a flow file for the CLI. `validate`, `run` and `flows save` all take
// a path (or - for standard input), load it with the flow core so an invalid
// flow fails before any network call, and report problems the same way.

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::cli {

struct FlowFile {
  std::string text;
  v1::DslFormat format = v1::DSL_FORMAT_UNSPECIFIED;  // from the extension; detected otherwise
  v1::FlowSpec spec;                                  // desugared and validated

  // The text as the scheduler receives it, so its errors point at what the
  // user wrote.
  v1::FlowSource Source() const;
};

// The file at `path`, or standard input for "-"; false when it cannot be
// read. Also what `schedules create` reads its file with.
bool ReadInput(const std::string& path, std::string* text);

// Reads and validates the flow at `path` into `file`. Returns 0 on success;
// otherwise prints why to `err` and returns the exit code: 2 when the file
// cannot be read (`command` names the reader in the message), 1 when the flow
// is invalid (every error with its path, syntax errors included).
int LoadFlowFile(absl::string_view command, const std::string& path, FlowFile* file,
                 std::ostream& err);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_FLOW_FILE_H_
