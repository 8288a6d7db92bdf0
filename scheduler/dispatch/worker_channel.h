#ifndef TASKBOARD_SCHEDULER_DISPATCH_WORKER_CHANNEL_H_
#define TASKBOARD_SCHEDULER_DISPATCH_WORKER_CHANNEL_H_

// The engine's handle on one connected worker stream. The gRPC layer
// implements it (an outbox with one write in flight); tests implement it with
// a vector. Send never blocks; the engine calls it from its commit thread.

#include <string>

#include "taskboard/v1/worker.pb.h"

namespace taskboard::dispatch {

class WorkerChannel {
 public:
  virtual ~WorkerChannel() = default;
  // Queues a message to the worker. Messages to a closed stream are dropped.
  virtual void Send(v1::ConnectResponse message) = 0;
  // Ends the stream as unavailable, saying `reason` (the scheduler is
  // shutting down): the worker reconnects, to this scheduler's successor,
  // keeping the tasks it runs. Messages queued before are dropped.
  virtual void Close(const std::string& reason) = 0;
};

}  // namespace taskboard::dispatch

#endif  // TASKBOARD_SCHEDULER_DISPATCH_WORKER_CHANNEL_H_
