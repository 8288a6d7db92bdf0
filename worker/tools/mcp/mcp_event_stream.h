#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_EVENT_STREAM_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_EVENT_STREAM_H_

// Reads the server-sent events of a Streamable HTTP MCP server (a POST's
// answer or the GET stream, docs/mcp.md#streamable-http-servers): each
// event of type `message` (the default) carries one JSON-RPC message in its
// `data` lines, handed to an McpInbox. Other event types, `id`, `retry` and
// comments are ignored: the worker does not resume streams. Bounded: an
// event's data passes through an McpMessageBuffer (so an over-long one
// fails the request it answers), field names and event types are cut short.
// Lines end with LF, CRLF or CR, split anywhere across Feed calls. Not
// thread-safe: one transfer feeds it.

#include <string>

#include "absl/strings/string_view.h"
#include "worker/tools/mcp/mcp_inbox.h"
#include "worker/tools/mcp/mcp_message_buffer.h"

namespace taskboard::worker {

class McpEventStream {
 public:
  explicit McpEventStream(McpInbox* inbox) : data_(inbox) {}

  // Bytes as they come off the wire.
  void Feed(absl::string_view bytes);
  // Events delivered so far (with data, of type message).
  int delivered() const { return delivered_; }

 private:
  enum class Field { kUnknown, kData, kEvent, kIgnored };

  void Take(absl::string_view part);
  void EndLine();
  void StartField();
  void Dispatch();

  McpMessageBuffer data_;
  int data_lines_ = 0;
  std::string event_;
  int delivered_ = 0;
  // The line being read.
  Field field_ = Field::kUnknown;
  std::string name_;
  bool strip_space_ = false;
  bool skip_lf_ = false;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_EVENT_STREAM_H_
