#ifndef TASKBOARD_WORKER_SESSION_REQUESTS_H_
#define TASKBOARD_WORKER_SESSION_REQUESTS_H_

// The messages a worker sends on its Connect stream (ConnectRequest), built
// in one place so every sender fills them the same way.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/agent.h"

namespace taskboard::worker {

v1::ConnectRequest TaskStartedRequest(const v1::Assignment& assignment);

v1::ConnectRequest OutputDeltaRequest(const v1::Assignment& assignment, std::string text);

// The agent's outcome as a TaskResult. Output and error are made valid UTF-8:
// a string field with invalid bytes would make the whole stream unreadable
// for the scheduler.
v1::ConnectRequest TaskResultRequest(const v1::Assignment& assignment, AgentOutcome outcome);

v1::ConnectRequest TaskReturnedRequest(const v1::Assignment& assignment, absl::string_view reason);

// `prefetch`, when set, is the worker's new queue size (Credits.prefetch).
v1::ConnectRequest CreditsRequest(int slots, std::optional<int> prefetch = std::nullopt);

// An empty lease list still says "alive".
v1::ConnectRequest HeartbeatRequest(std::vector<std::string> lease_ids);

v1::ConnectRequest DrainingRequest(int64_t grace_ms);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_REQUESTS_H_
