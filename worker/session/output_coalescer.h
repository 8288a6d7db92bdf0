#ifndef TASKBOARD_WORKER_SESSION_OUTPUT_COALESCER_H_
#define TASKBOARD_WORKER_SESSION_OUTPUT_COALESCER_H_

// Turns one task's stream of output chunks into OutputDelta texts: at most one
// per interval (an agent printing a line per millisecond costs one message per
// 100 ms, not a thousand), each valid UTF-8 (a chunk that ends inside a
// character keeps that character's bytes for the next delta). No clock of its
// own: callers pass `now`. Not thread-safe.

#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"

namespace taskboard::worker {

class OutputCoalescer {
 public:
  explicit OutputCoalescer(absl::Duration interval) : interval_(interval) {}

  void Append(absl::string_view chunk) { pending_.append(chunk.data(), chunk.size()); }

  // The text to send now: everything pending up to the last complete UTF-8
  // character, if there is any and the interval since the last send passed.
  absl::optional<std::string> Take(absl::Time now);

  // Everything pending (invalid bytes replaced), e.g. when the task ends.
  absl::optional<std::string> TakeAll();

  // Drops what is pending (the stream is down: live output is not kept).
  void Clear() { pending_.clear(); }

  bool has_pending() const { return !pending_.empty(); }
  // When Take will next return text, if anything is pending.
  absl::Time next_due() const { return last_sent_ + interval_; }

 private:
  const absl::Duration interval_;
  std::string pending_;
  absl::Time last_sent_ = absl::InfinitePast();
};

// The length of the longest prefix of `text` that does not end inside a
// UTF-8 sequence (invalid bytes count as complete; they get replaced).
size_t CompleteUtf8Prefix(absl::string_view text);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_OUTPUT_COALESCER_H_
