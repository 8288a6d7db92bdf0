#ifndef TASKBOARD_WORKER_AGENTS_THINKING_LEVEL_H_
#define TASKBOARD_WORKER_AGENTS_THINKING_LEVEL_H_

// A task's `thinking` level (pi's off | minimal | low | medium | high |
// xhigh) and what it becomes for a model: llm agents send it as OpenAI's
// `reasoning_effort`, command agents get it as TASKBOARD_THINKING
// (docs/agents-llm.md, docs/agents-command.md).

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/agent_file.h"

namespace taskboard::worker {

// The phase's `thinking` when it set one (it comes in the assignment), else
// the agent file's; "" when neither did.
std::string TaskThinking(const v1::Assignment& assignment, const AgentDefinition& definition);

// The `reasoning_effort` a level asks for: minimal, low, medium and high as
// they are (OpenAI accepts exactly these); xhigh, which OpenAI does not
// have, as high; nullopt for off and "" (send nothing: the model's default).
// Any other word goes as written, lower-cased, for providers with levels of
// their own; the provider judges it. Case-insensitive.
std::optional<std::string> ReasoningEffort(absl::string_view thinking);

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_AGENTS_THINKING_LEVEL_H_
