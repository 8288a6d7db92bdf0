#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_OPTIONS_DECODER_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_OPTIONS_DECODER_H_

// Decodes the flow-level Taskboard extensions `flowPolicy` and `toolCache`
// (docs/semantics.md#flow-policies and docs/semantics.md#tool-cache) and the LLM budget options
// (docs/llm-governance.md) from the DSL into their protos.
//
//   flowPolicy: declared_deps_only                       # a name, or
//   flowPolicy: {type: recent_trajectory, n: 8, maxTokens: 4000}
//   toolCache:
//     defaultTtlMs: 60000
//     tools: {read_file: {ttlMs: 0, scope: request, keyFields: [path]}}
//   budget: {tokens: 2000000, usd: 5}
//   onBudget: fail

#include <cstdint>
#include <string>

#include "absl/types/span.h"
#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "taskboard/v1/flow.pb.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::flow {

// `priority` is in [-kMaxFlowPriority, kMaxFlowPriority]. It only orders a
// run's waiting model calls against other runs'; a small range keeps it a
// ranking rather than a race to ever larger numbers.
inline constexpr int32_t kMaxFlowPriority = 1000;

// The policy names DecodeFlowPolicy knows, in snake_case.
absl::Span<const char* const> FlowPolicyNames();

v1::FlowPolicy DecodeFlowPolicy(const Json& value, const std::string& path, FlowErrorList* errors);
v1::ToolCacheConfig DecodeToolCache(const Json& value, const std::string& path,
                                    FlowErrorList* errors);
// `run` | `request` | `session`; records an error and returns UNSPECIFIED otherwise.
v1::CacheScope DecodeCacheScope(const Json& value, const std::string& path, FlowErrorList* errors);

// `{tokens?, usd?}`, both >= 0 (0: no limit); other keys are errors.
v1::RunBudget DecodeRunBudget(const Json& value, const std::string& path, FlowErrorList* errors);
// `pause` | `fail`; records an error and returns UNSPECIFIED otherwise.
v1::OnBudget DecodeOnBudget(const Json& value, const std::string& path, FlowErrorList* errors);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_OPTIONS_DECODER_H_
