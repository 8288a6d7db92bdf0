#include "scheduler/server/watch_linger.h"

namespace taskboard::server {

bool WatchLinger::Hold(const Stream& stream) {
  return stream.events_per_message > 1 && !stream.replaying && !stream.held && !CutShort(stream) &&
         stream.queued > 0 && stream.queued < kSmallWrite && stream.last_write < kSmallWrite;
}

bool WatchLinger::CutShort(const Stream& stream) {
  return stream.run_over || stream.queued >= static_cast<size_t>(stream.events_per_message);
}

}  // namespace taskboard::server
