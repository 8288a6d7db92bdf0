#ifndef TASKBOARD_TESTS_UNIT_ENGINE_READ_FILE_CALLS_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_READ_FILE_CALLS_H_

// The tool call engine tests make through the cache: read_file of
// README.md, and a worker's declaration of read_file as cacheable.

#include <cstdint>

#include "taskboard/v1/worker.pb.h"

namespace taskboard::engine::testing {

inline constexpr char kReadArgs[] = R"({"path":"README.md"})";
inline constexpr char kReadResult[] = R"({"content":"# Taskboard"})";

// read_file as a worker declares it: cacheable for `ttl_ms`, in `scope`
// (unspecified: the flow's default).
inline v1::ToolDeclaration CacheableReadFile(
    int64_t ttl_ms = 60'000, v1::CacheScope scope = v1::CACHE_SCOPE_UNSPECIFIED) {
  v1::ToolDeclaration tool;
  tool.set_name("read_file");
  tool.set_cacheable(true);
  tool.set_default_ttl_ms(ttl_ms);
  if (scope != v1::CACHE_SCOPE_UNSPECIFIED) tool.set_default_scope(scope);
  return tool;
}

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_READ_FILE_CALLS_H_
