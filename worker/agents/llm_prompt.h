#ifndef TASKBOARD_WORKER_AGENTS_LLM_PROMPT_H_
#define TASKBOARD_WORKER_AGENTS_LLM_PROMPT_H_

// What the llm agent's conversation starts from: the messages of its first
// request and the tools it offers the model.

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "taskboard/v1/common.pb.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::worker {

// The heading of the prior-work section appended to the task prompt.
inline constexpr absl::string_view kPriorWorkHeading = "## Prior work";

// [system: `system_prompt`] (left out when empty), then user: the task
// prompt, followed, when `include_prior_work` and the task has any, by a
// "## Prior work" section holding FormatPriorWork(assignment.prior_work()).
std::vector<v1::ChatMessage> InitialMessages(const v1::Assignment& assignment,
                                             absl::string_view system_prompt,
                                             bool include_prior_work);

// The tools to offer, from `available` (the worker's, sorted by name): those
// the task may call (common/tool_allow_list.h: the phase's `tools`
// (Assignment.tools) narrowed by the agent file's; all when neither names
// any). Names that are not available are skipped: the model cannot call
// what the worker does not have.
std::vector<v1::ToolDeclaration> OfferedTools(const std::vector<v1::ToolDeclaration>& available,
                                              const v1::Assignment& assignment,
                                              const std::vector<std::string>& agent_tools);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_LLM_PROMPT_H_
