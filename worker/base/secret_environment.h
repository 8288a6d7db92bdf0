#ifndef TASKBOARD_WORKER_BASE_SECRET_ENVIRONMENT_H_
#define TASKBOARD_WORKER_BASE_SECRET_ENVIRONMENT_H_

// Secrets the worker is started with (its token, LLM API keys) leave its
// environment once read. Agents run as the worker's user, so scrubbing their
// own environment (child_environment.h) is not enough: a command agent could
// read the worker's start-up environment from /proc/<worker pid>/environ,
// which the kernel serves from the bytes the process was started with, or
// read the worker's memory. So the worker
//
//  - keeps each secret in this process-wide store and zeroes its bytes in
//    the start-up environment block (what /proc/<pid>/environ shows), then
//    unsets it; and
//  - marks itself non-dumpable, so a process of the same user that is not
//    root can neither read /proc/<pid>/environ or /proc/<pid>/mem nor
//    ptrace it (execve resets the flag, so agents are unaffected).

#include <string>

namespace taskboard::worker {

// Moves `name` out of the environment into the store (idempotent: a second
// take keeps the first value). A variable that is not set is left alone.
void TakeSecretFromEnvironment(const std::string& name);

// The variable from the environment if it is set there (tests, or a
// variable that is no secret), else the value taken from it; "" if neither.
std::string SecretOrEnvironment(const std::string& name);

// prctl(PR_SET_DUMPABLE, 0). Returns false when the kernel refused.
bool MakeProcessNonDumpable();

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_BASE_SECRET_ENVIRONMENT_H_
