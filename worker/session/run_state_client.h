#ifndef TASKBOARD_WORKER_SESSION_RUN_STATE_CLIENT_H_
#define TASKBOARD_WORKER_SESSION_RUN_STATE_CLIENT_H_

// The worker's side of run storage (docs/mcp.md#flowstate): each call is one
// WorkerGateway.RunState on the channel the session streams on, with the
// worker's token, so it reaches the leader the stream reaches. A call that
// finds no leader fails with the scheduler's UNAVAILABLE; the tool reports
// it and the agent may try again (run storage is never cached or queued).

#include <functional>
#include <memory>
#include <string>

#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "worker/tools/flow_state.h"

namespace taskboard::worker {

class RunStateClient : public RunStateLink {
 public:
  // `channel` gives the channel to call on (the session's current one);
  // `token` is sent as `authorization: Bearer` when not empty.
  RunStateClient(std::function<std::shared_ptr<grpc::Channel>()> channel, std::string token,
                 absl::Duration timeout = absl::Seconds(30))
      : channel_(std::move(channel)), token_(std::move(token)), timeout_(timeout) {}

  // The scheduler's status as is, its message prefixed by nothing: it
  // already names the key and the limit.
  absl::StatusOr<v1::RunStateResponse> Call(const v1::RunStateRequest& request) override;

 private:
  const std::function<std::shared_ptr<grpc::Channel>()> channel_;
  const std::string token_;
  const absl::Duration timeout_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_RUN_STATE_CLIENT_H_
