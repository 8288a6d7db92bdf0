#ifndef TASKBOARD_SCHEDULER_SERVER_ENGINE_ANSWER_H_
#define TASKBOARD_SCHEDULER_SERVER_ENGINE_ANSWER_H_

// Finishes a unary call with what the engine's loop answered (an
// absl::Status or StatusOr): an OK answer is written into the response by
// `fill`, the status converted once (grpc_status.h). The schedule and
// trigger calls end this way.

#include <functional>
#include <type_traits>

#include "absl/status/status.h"
#include "grpcpp/support/server_callback.h"
#include "scheduler/server/grpc_status.h"

namespace taskboard::server {

template <typename Answer>
void FinishAnswer(grpc::ServerUnaryReactor* reactor, Answer& answer,
                  const std::function<void(Answer&)>& fill) {
  absl::Status status;
  if constexpr (std::is_same_v<Answer, absl::Status>) {
    status = answer;
  } else {
    status = answer.status();
  }
  if (status.ok()) fill(answer);
  reactor->Finish(ToGrpcStatus(status));
}

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_ENGINE_ANSWER_H_
