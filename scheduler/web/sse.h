#ifndef TASKBOARD_SCHEDULER_WEB_SSE_H_
#define TASKBOARD_SCHEDULER_WEB_SSE_H_

// Server-sent events (the WHATWG "text/event-stream" format) for the HTTP
// API's streams: one frame per message, with the resume position as its
// `id`, so a reader that reconnects sends it back as Last-Event-ID.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::web {

// "event: NAME\nid: ID\ndata: LINE\n...\n\n"; no id line when `id` is empty.
// Each line of `data` becomes its own data line, so a newline in it cannot
// end the frame early.
std::string SseFrame(absl::string_view event, std::optional<int64_t> id, absl::string_view data);

// The Last-Event-ID a reconnecting reader sent: a non-negative integer, or
// 0 (from the start) when absent or not one.
int64_t ParseLastEventId(absl::string_view header);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_SSE_H_
