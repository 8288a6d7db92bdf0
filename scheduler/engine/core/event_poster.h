#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_EVENT_POSTER_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_EVENT_POSTER_H_

// Posts an event to the engine's loop from any thread: how an answer that
// arrives outside the loop (a PolicyService's, on a gRPC thread) gets back
// onto the single owner of the runs. Implemented by the Engine.

#include <functional>

namespace taskboard::engine {

class EventPoster {
 public:
  virtual ~EventPoster() = default;
  // Thread-safe; never blocks on the loop. `event` runs on the loop thread
  // in a later batch.
  virtual void Post(std::function<void()> event) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_EVENT_POSTER_H_
