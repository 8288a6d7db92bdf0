#ifndef TASKBOARD_TESTS_UNIT_ENGINE_RECORDING_CHANNEL_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_RECORDING_CHANNEL_H_

// A worker stream that keeps what the engine sends it, for tests that play
// a worker.

#include <string>
#include <utility>
#include <vector>

#include "scheduler/dispatch/worker_channel.h"

namespace taskboard::engine::testing {

class RecordingChannel final : public dispatch::WorkerChannel {
 public:
  void Send(v1::ConnectResponse message) override { messages_.push_back(std::move(message)); }
  void Close(const std::string& reason) override { closed_reason_ = reason; }
  // Why the engine closed the stream ("" while open).
  const std::string& closed_reason() const { return closed_reason_; }
  // Messages since the last call.
  std::vector<v1::ConnectResponse> Take() {
    std::vector<v1::ConnectResponse> taken;
    taken.swap(messages_);
    return taken;
  }

 private:
  std::vector<v1::ConnectResponse> messages_;
  std::string closed_reason_;
};

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_RECORDING_CHANNEL_H_
