#include "scheduler/server/lent_events.h"

#include <cassert>
#include <utility>

namespace taskboard::server {

LentEvents::~LentEvents() { assert(lent_.empty()); }

void LentEvents::LendOne(std::shared_ptr<const v1::RunEvent> event,
                         v1::WatchRunResponse& response) {
  assert(lent_.empty());
  response.unsafe_arena_set_allocated_event(const_cast<v1::RunEvent*>(event.get()));
  lent_.push_back(std::move(event));
  one_ = true;
}

void LentEvents::LendMore(std::shared_ptr<const v1::RunEvent> event,
                          v1::WatchRunResponse& response) {
  assert(!one_);
  response.mutable_events()->UnsafeArenaAddAllocated(const_cast<v1::RunEvent*>(event.get()));
  lent_.push_back(std::move(event));
}

void LentEvents::Return(v1::WatchRunResponse& response) {
  if (one_) {
    response.unsafe_arena_release_event();
  } else {
    // Only lent events are in `events`: the reactor adds nothing else.
    while (!response.events().empty()) response.mutable_events()->UnsafeArenaReleaseLast();
  }
  lent_.clear();
  one_ = false;
}

}  // namespace taskboard::server
