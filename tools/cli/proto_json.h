#ifndef TASKBOARD_TOOLS_CLI_PROTO_JSON_H_
#define TASKBOARD_TOOLS_CLI_PROTO_JSON_H_

// API messages as JSON for `--json` output: protobuf's canonical JSON mapping
// (lowerCamelCase field names, enums by name, timestamps as RFC 3339), the
// same a client of any language would get from the generated code.

#include <string>

#include "google/protobuf/message.h"

namespace taskboard::cli {

// One line, for JSON-lines streams (`run --json`).
std::string ProtoToJsonLine(const google::protobuf::Message& message);

// Indented, for a single document (`show --json`).
std::string ProtoToJsonPretty(const google::protobuf::Message& message);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_PROTO_JSON_H_
