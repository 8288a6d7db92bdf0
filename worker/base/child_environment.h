#ifndef TASKBOARD_WORKER_BASE_CHILD_ENVIRONMENT_H_
#define TASKBOARD_WORKER_BASE_CHILD_ENVIRONMENT_H_

// The environment every program the worker starts for a task (command agents,
// command tools) begins with. It is not the worker's: the worker's holds its
// scheduler token and API keys (OPENAI_API_KEY for llm agents) that a prompt
// could talk an agent into printing. A child gets only
//   - the basic variables of kBaseVariables, copied when the worker has them;
//   - the variables its file names in `passEnv` (agent files) or `pass_env`
//     (tool files), copied from the worker's environment;
// and then whatever its caller adds (the agent file's `env`, TASKBOARD_*).
// TASKBOARD_TOKEN is never copied, even when named.

#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace taskboard::worker {

// Copied into every child's environment when set in the worker's.
inline constexpr absl::string_view kBaseVariables[] = {
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"};

// The worker's bearer token for the scheduler: never passed on.
inline constexpr absl::string_view kWorkerTokenVariable = "TASKBOARD_TOKEN";

// kBaseVariables plus `pass_through`, with the values the worker's own
// environment has now (unset ones are left out).
std::map<std::string, std::string> ChildEnvironment(const std::vector<std::string>& pass_through);

// For file parsers: INVALID_ARGUMENT when `name` may not be passed through
// (not a variable name, or the worker's token), naming it and what to do.
absl::Status CheckPassThroughName(absl::string_view name);

// NAME=value strings, as SubprocessOptions::env takes them.
std::vector<std::string> EnvironmentStrings(const std::map<std::string, std::string>& vars);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_CHILD_ENVIRONMENT_H_
