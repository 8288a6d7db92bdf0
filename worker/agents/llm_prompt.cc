#include "worker/agents/llm_prompt.h"

#include "absl/strings/str_cat.h"
#include "common/tool_allow_list.h"
#include "worker/agents/prior_work_format.h"

namespace taskboard::worker {

std::vector<v1::ChatMessage> InitialMessages(const v1::Assignment& assignment,
                                             absl::string_view system_prompt,
                                             bool include_prior_work) {
  std::vector<v1::ChatMessage> messages;
  if (!system_prompt.empty()) {
    v1::ChatMessage& system = messages.emplace_back();
    system.set_role("system");
    system.set_content(std::string(system_prompt));
  }
  v1::ChatMessage& user = messages.emplace_back();
  user.set_role("user");
  user.set_content(assignment.prompt());
  if (include_prior_work) {
    const std::string prior = FormatPriorWork(assignment.prior_work(), assignment.run_id());
    if (!prior.empty()) {
      user.set_content(absl::StrCat(assignment.prompt(), "\n\n", kPriorWorkHeading, "\n\n", prior));
    }
  }
  return messages;
}

std::vector<v1::ToolDeclaration> OfferedTools(const std::vector<v1::ToolDeclaration>& available,
                                              const v1::Assignment& assignment,
                                              const std::vector<std::string>& agent_tools) {
  const ToolAllowList allowed(assignment.tools(), agent_tools);
  std::vector<v1::ToolDeclaration> offered;
  for (const v1::ToolDeclaration& tool : available) {
    if (allowed.Allows(tool.name())) offered.push_back(tool);
  }
  return offered;
}

}  // namespace taskboard::worker
