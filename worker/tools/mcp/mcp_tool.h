#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_TOOL_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_TOOL_H_

// One tool of an MCP server, offered to agents like any other tool
// (worker/tools/tool.h): the ToolCaller asks the shared cache first and
// records one ToolObservation, whatever the tool's source (docs/mcp.md).
//
// Its declaration takes the server's name for it behind the file's prefix,
// the server's description and input schema, and the cache settings of the
// server file (not cacheable unless the file says so: the server's
// readOnlyHint / idempotentHint are hints, not promises). A result keeps the
// server's content blocks (text, images as base64 data, resources and
// resource links) and structuredContent; `isError: true` is a tool error, so
// it is never cached.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/json.h"
#include "worker/tools/mcp/mcp_client.h"
#include "worker/tools/tool.h"

namespace taskboard::worker {

class McpTool : public Tool {
 public:
  McpTool(std::shared_ptr<McpClient> client, std::string server_tool_name,
          v1::ToolDeclaration declaration);

  const v1::ToolDeclaration& declaration() const override { return declaration_; }
  std::string source() const override;
  absl::StatusOr<std::string> Execute(absl::string_view args_json,
                                      const ToolContext& context) const override;

 private:
  const std::shared_ptr<McpClient> client_;
  const std::string server_tool_name_;
  const v1::ToolDeclaration declaration_;
};

// The tools/call result `result` as the tool's result JSON text:
// {"content": [...]} plus "structuredContent" when the server gave it.
// Errors: UNKNOWN with the text of its content blocks when isError is
// true; UNKNOWN when it has no content array; RESOURCE_EXHAUSTED when the
// JSON text is longer than `max_bytes`. Messages begin with `who`.
absl::StatusOr<std::string> McpToolResultJson(const Json& result, absl::string_view who,
                                              size_t max_bytes);

// The tools a listing offers: those the file's allow-list admits, named
// prefix + name. Tools whose offered name is not a valid tool name are left
// out with a warning in the log.
std::vector<std::unique_ptr<Tool>> MakeMcpTools(const std::shared_ptr<McpClient>& client,
                                                const std::vector<McpToolInfo>& listed);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_TOOL_H_
