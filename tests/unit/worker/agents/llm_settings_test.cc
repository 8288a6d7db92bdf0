// The llm agent fields of agent files (worker/agents/llm_settings.h), read
// through ParseAgentFile as the worker does.

#include "worker/agents/llm_settings.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "worker/agents/agent_file.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

absl::StatusOr<AgentDefinition> Parse(const std::string& file, absl::string_view text) {
  return ParseAgentFile("/srv/agents/" + file, text);
}

TEST(LlmSettings, NoFields_TakeTheDefaults) {
  absl::StatusOr<AgentDefinition> def = Parse("a.md", "---\nmodel: m\n---\nHi.\n");
  ASSERT_THAT(def, IsOk());
  EXPECT_EQ(def->type, AgentType::kLlm);
  EXPECT_EQ(def->llm.base_url, "");
  EXPECT_EQ(def->llm.api_key_env, "OPENAI_API_KEY");
  EXPECT_EQ(def->llm.max_turns, 16);
  EXPECT_TRUE(def->llm.prior_work);
  EXPECT_TRUE(def->llm.stream);
  EXPECT_FALSE(def->llm.temperature.has_value());
  EXPECT_FALSE(def->llm.max_tokens.has_value());
  EXPECT_TRUE(def->llm.pricing.empty());
  EXPECT_EQ(def->llm.max_response_bytes, 16 << 20);
}

TEST(LlmSettings, CamelCaseFields_AreRead) {
  absl::StatusOr<AgentDefinition> def = Parse("a.yaml", R"(
type: llm
model: gpt-4o
baseUrl: http://127.0.0.1:8080/v1
apiKeyEnv: MY_KEY
maxTurns: 4
temperature: 0.2
maxTokens: 1000
priorWork: false
stream: false
requestTimeoutSeconds: 30
maxAttempts: 2
maxResponseBytes: 65536
pricing:
  gpt-4o: {inputPerMtok: 2.5, outputPerMtok: 10}
)");
  ASSERT_THAT(def, IsOk());
  EXPECT_EQ(def->llm.base_url, "http://127.0.0.1:8080/v1");
  EXPECT_EQ(def->llm.api_key_env, "MY_KEY");
  EXPECT_EQ(def->llm.max_turns, 4);
  EXPECT_EQ(def->llm.temperature, 0.2);
  EXPECT_EQ(def->llm.max_tokens, 1000);
  EXPECT_FALSE(def->llm.prior_work);
  EXPECT_FALSE(def->llm.stream);
  EXPECT_EQ(def->llm.request_timeout, absl::Seconds(30));
  EXPECT_EQ(def->llm.max_attempts, 2);
  EXPECT_EQ(def->llm.max_response_bytes, 65536);
  EXPECT_DOUBLE_EQ(def->llm.pricing.at("gpt-4o").input_per_mtok, 2.5);
  EXPECT_DOUBLE_EQ(def->llm.pricing.at("gpt-4o").output_per_mtok, 10);
}

TEST(LlmSettings, SnakeCaseSpellings_AreAccepted) {
  absl::StatusOr<AgentDefinition> def = Parse("a.json", R"({
    "model": "m", "base_url": "http://h/v1", "api_key_env": "K", "max_turns": 3,
    "prior_work": false,
    "pricing": {"m": {"input_per_mtok": 1, "output_per_mtok": 4}}})");
  ASSERT_THAT(def, IsOk());
  EXPECT_EQ(def->llm.base_url, "http://h/v1");
  EXPECT_EQ(def->llm.api_key_env, "K");
  EXPECT_EQ(def->llm.max_turns, 3);
  EXPECT_FALSE(def->llm.prior_work);
  EXPECT_DOUBLE_EQ(def->llm.pricing.at("m").output_per_mtok, 4);
}

TEST(LlmSettings, BothSpellings_Fail) {
  EXPECT_THAT(Parse("a.json", R"({"baseUrl": "http://a/v1", "base_url": "http://b/v1"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'baseUrl' and 'base_url' are the same setting")));
}

TEST(LlmSettings, BadValue_FailsNamingTheFileAndField) {
  EXPECT_THAT(
      Parse("a.json", R"({"maxTurns": 0})"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("/srv/agents/a.json: field 'maxTurns' must be a whole number > 0")));
  EXPECT_THAT(Parse("a.json", R"({"pricing": {"m": {"inputPerMtok": -1}}})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'pricing.m': field 'inputPerMtok' must be a number >= 0")));
  EXPECT_THAT(Parse("a.json", R"({"maxResponseBytes": 2000000000})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'maxResponseBytes' must be at most 1073741824 (1 GiB)")));
  EXPECT_THAT(Parse("a.json", R"({"pricing": {"m": {"input": 1}}})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown field 'input'")));
}

TEST(LlmSettings, LlmFieldOnCommandAgent_Fails) {
  EXPECT_THAT(Parse("a.yaml", "command: [cat]\nmaxTurns: 3\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'maxTurns' applies only to llm agents")));
}

TEST(LlmSettings, CostUsd_UsesThePriceTable) {
  LlmSettings settings;
  settings.pricing["m"] = {.input_per_mtok = 3, .output_per_mtok = 15};
  EXPECT_DOUBLE_EQ(CostUsd(settings, "m", 1'000'000, 100'000), 3 + 1.5);
  EXPECT_EQ(CostUsd(settings, "unpriced", 1'000'000, 1'000'000), 0);
}

TEST(LlmSettings, ReasoningField_DefaultsToOpenAisAndIsRead) {
  absl::StatusOr<AgentDefinition> plain = Parse("a.md", "---\nmodel: m\n---\nHi.\n");
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(plain->llm.reasoning_field, "reasoning_effort");
  for (const char* spelling : {"reasoningField", "reasoning_field"}) {
    absl::StatusOr<AgentDefinition> def =
        Parse("a.md", absl::StrCat("---\nmodel: m\nthinking: high\n", spelling,
                                   ": reasoning.effort\n---\nHi.\n"));
    ASSERT_THAT(def, IsOk());
    EXPECT_EQ(def->thinking, "high");
    EXPECT_EQ(def->llm.reasoning_field, "reasoning.effort");
  }
}

}  // namespace
}  // namespace taskboard::worker
