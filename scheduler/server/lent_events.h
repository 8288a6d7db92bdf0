#ifndef TASKBOARD_SCHEDULER_SERVER_LENT_EVENTS_H_
#define TASKBOARD_SCHEDULER_SERVER_LENT_EVENTS_H_

// Puts published run events (engine::EventBatch: shared, never changed) into
// a WatchRunResponse for one write without copying them: the response points
// at the shared messages, which this keeps alive, until Return takes them
// back out. Every watcher of a run writes the same events; copying each into
// each watcher's response cost a Task copy per event per watcher, on the
// engine thread. gRPC only reads a response it writes (serializing it), and
// protobuf's cached sizes are atomic, so watchers may write the same event at
// once.
//
// Return must come before the response is cleared, refilled or destroyed
// (it would delete messages it does not own): call it when the write is done.
// Not thread-safe: the reactor's write path owns it, as it owns the response.

#include <memory>
#include <vector>

#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::server {

class LentEvents {
 public:
  LentEvents() = default;
  LentEvents(const LentEvents&) = delete;
  LentEvents& operator=(const LentEvents&) = delete;
  // Lent events still in a response are a bug of the caller's: they are
  // dropped from no response here, so say so loudly in debug builds.
  ~LentEvents();

  // Sets `response.event` to `event`.
  void LendOne(std::shared_ptr<const v1::RunEvent> event, v1::WatchRunResponse& response);
  // Appends `event` to `response.events`.
  void LendMore(std::shared_ptr<const v1::RunEvent> event, v1::WatchRunResponse& response);
  // Takes every lent event back out of `response`, which is then empty of
  // them, and lets them go.
  void Return(v1::WatchRunResponse& response);

 private:
  std::vector<std::shared_ptr<const v1::RunEvent>> lent_;
  bool one_ = false;
};

}  // namespace taskboard::server

#endif  // TASKBOARD_SCHEDULER_SERVER_LENT_EVENTS_H_
