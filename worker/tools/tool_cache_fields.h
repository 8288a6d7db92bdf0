#ifndef TASKBOARD_WORKER_TOOLS_TOOL_CACHE_FIELDS_H_
#define TASKBOARD_WORKER_TOOLS_TOOL_CACHE_FIELDS_H_

// The cache fields tool files share (command tool files and the per-tool
// entries of MCP server files): cacheable, ttl_ms, scope, key_fields, read
// into a tool's declaration (docs/tool-cache.md).

#include "absl/status/status.h"
#include "common/json.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

// Names of the fields ReadToolCacheFields reads.
inline constexpr const char* kToolCacheFields[] = {"cacheable", "ttl_ms", "scope", "key_fields"};

// Sets the cache fields of `decl` from those present (and not null) in
// `object`, leaving others alone. INVALID_ARGUMENT naming the field and what
// it must be.
absl::Status ReadToolCacheFields(const Json& object, v1::ToolDeclaration* decl);

// "field 'F' must be EXPECTED, got VALUE".
absl::Status WrongFieldType(absl::string_view field, absl::string_view expected, const Json& value);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_TOOL_CACHE_FIELDS_H_
