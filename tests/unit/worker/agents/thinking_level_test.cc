#include "worker/agents/thinking_level.h"

#include <optional>

#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

TEST(ReasoningEffort, PiLevels_MapOntoOpenAisLevels) {
  EXPECT_EQ(ReasoningEffort("off"), std::nullopt);
  EXPECT_EQ(ReasoningEffort(""), std::nullopt);
  EXPECT_EQ(ReasoningEffort("minimal"), "minimal");
  EXPECT_EQ(ReasoningEffort("low"), "low");
  EXPECT_EQ(ReasoningEffort("medium"), "medium");
  EXPECT_EQ(ReasoningEffort("high"), "high");
  EXPECT_EQ(ReasoningEffort("xhigh"), "high");
}

TEST(ReasoningEffort, CaseAndOtherWords_AreLowerCasedAndPassedOn) {
  EXPECT_EQ(ReasoningEffort(" High "), "high");
  EXPECT_EQ(ReasoningEffort("OFF"), std::nullopt);
  EXPECT_EQ(ReasoningEffort("none"), "none");
}

TEST(TaskThinking, PhaseLevelWins_ElseTheAgentFiles) {
  AgentDefinition def;
  def.thinking = "low";
  v1::Assignment assignment;
  EXPECT_EQ(TaskThinking(assignment, def), "low");
  assignment.set_thinking("high");
  EXPECT_EQ(TaskThinking(assignment, def), "high");
}

}  // namespace
}  // namespace taskboard::worker
