#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_MESSAGE_BUFFER_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_MESSAGE_BUFFER_H_

// Collects one message from the pieces a transport reads (parts of a stdio
// line, the data lines of a server-sent event) and hands it to an McpInbox,
// bounded: past the inbox's max_message_bytes only the first and last few
// hundred bytes are kept, so an over-long message costs the worker no more
// memory than the limit and still fails the request it answers
// (mcp_inbox.h). Not thread-safe: one reader feeds it.

#include <string>

#include "absl/strings/string_view.h"
#include "worker/tools/mcp/mcp_inbox.h"

namespace taskboard::worker {

class McpMessageBuffer {
 public:
  explicit McpMessageBuffer(McpInbox* inbox) : inbox_(inbox) {}

  void Append(absl::string_view part);
  // Whether nothing was appended since the last Deliver.
  bool empty() const { return !oversized_ && text_.empty(); }
  // Hands the message to the inbox and starts the next one.
  void Deliver();
  // Forgets what was appended.
  void Clear();

 private:
  McpInbox* const inbox_;
  std::string text_;
  bool oversized_ = false;
  std::string head_;
  std::string tail_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_MESSAGE_BUFFER_H_
