#ifndef TASKBOARD_WORKER_AGENTS_CHAT_STREAM_H_
#define TASKBOARD_WORKER_AGENTS_CHAT_STREAM_H_

// Assembles a streamed chat completion (server-sent events: `data: {chunk}`
// lines, blank-line separated, ending with `data: [DONE]`) into one
// ChatResponse. Content deltas are forwarded as they arrive; tool-call
// deltas are joined by their `index` (the id and name come first, the
// arguments in pieces). Not thread-safe: one transfer feeds it.

#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "worker/agents/chat_types.h"

namespace taskboard::worker {

class ChatStreamAssembler {
 public:
  using DeltaCallback = std::function<void(absl::string_view)>;

  explicit ChatStreamAssembler(DeltaCallback on_delta) : on_delta_(std::move(on_delta)) {}

  // Bytes as they come off the wire (any split). After the first bad chunk
  // the rest is ignored and Finish reports it.
  void Feed(absl::string_view bytes);

  // Whether `data: [DONE]` arrived.
  bool done() const { return done_; }

  // The response. INVALID_ARGUMENT for a chunk that is not JSON, or a stream
  // that ended without [DONE] and without any choice.
  absl::StatusOr<ChatResponse> Finish();

 private:
  void Line(absl::string_view line);
  void Chunk(absl::string_view data);

  DeltaCallback on_delta_;
  std::string pending_;
  absl::Status status_;
  bool done_ = false;
  bool saw_choice_ = false;
  ChatResponse response_;
  // Tool calls by stream index, in index order.
  std::map<int, v1::ChatToolCall> calls_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_CHAT_STREAM_H_
