#include "worker/agents/thinking_level.h"

#include "absl/strings/ascii.h"

namespace taskboard::worker {

std::string TaskThinking(const v1::Assignment& assignment, const AgentDefinition& definition) {
  return assignment.thinking().empty() ? definition.thinking : assignment.thinking();
}

std::optional<std::string> ReasoningEffort(absl::string_view thinking) {
  const std::string level = absl::AsciiStrToLower(absl::StripAsciiWhitespace(thinking));
  if (level.empty() || level == "off") return std::nullopt;
  if (level == "xhigh") return "high";
  return level;
}

}  // namespace taskboard::worker
