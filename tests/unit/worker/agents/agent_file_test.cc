#include "worker/agents/agent_file.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kDir[] = "/srv/agents";

AgentDefinition Parse(const std::string& file, absl::string_view text) {
  absl::StatusOr<AgentDefinition> def = ParseAgentFile(std::string(kDir) + "/" + file, text);
  EXPECT_THAT(def, IsOk());
  return def.ok() ? *std::move(def) : AgentDefinition();
}

absl::Status ParseError(const std::string& file, absl::string_view text) {
  return ParseAgentFile(std::string(kDir) + "/" + file, text).status();
}

TEST(ParseAgentFile, Json_ReadsEveryField) {
  AgentDefinition def = Parse("a.json", R"({
    "name": "scout", "type": "command", "description": "Lists files", "model": "m1",
    "thinking": "low", "tools": ["read_file"], "command": ["/usr/bin/env", "x"],
    "env": {"A": "1", "N": 2, "B": true}, "timeoutSeconds": 30, "cwd": "/tmp"})");
  EXPECT_EQ(def.name, "scout");
  EXPECT_EQ(def.type, AgentType::kCommand);
  EXPECT_EQ(def.description, "Lists files");
  EXPECT_EQ(def.model, "m1");
  EXPECT_EQ(def.thinking, "low");
  EXPECT_THAT(def.tools, ElementsAre("read_file"));
  EXPECT_THAT(def.argv, ElementsAre("/usr/bin/env", "x"));
  EXPECT_THAT(def.env, ElementsAre(Pair("A", "1"), Pair("N", "2"), Pair("B", "true")));
  EXPECT_EQ(def.timeout, absl::Seconds(30));
  EXPECT_EQ(def.cwd, "/tmp");
  EXPECT_EQ(def.source, "/srv/agents/a.json");
}

TEST(ParseAgentFile, Yaml_DefaultsNameToFileStemAndTimeoutTo600s) {
  AgentDefinition def = Parse("summarizer.yaml", "command: [cat]\n");
  EXPECT_EQ(def.name, "summarizer");
  EXPECT_EQ(def.type, AgentType::kCommand);
  EXPECT_THAT(def.argv, ElementsAre("cat"));  // a bare name is looked up in PATH
  EXPECT_EQ(def.timeout, absl::Seconds(600));
  EXPECT_TRUE(def.cwd.empty());
}

TEST(ParseAgentFile, RelativeProgramWithSlash_ResolvedAgainstAgentsDirectory) {
  EXPECT_THAT(Parse("a.yml", "command: [./bin/scout.sh, --fast]\n").argv,
              ElementsAre("/srv/agents/bin/scout.sh", "--fast"));
  EXPECT_THAT(Parse("b.yml", "command: [../tools/x]\n").argv, ElementsAre("/srv/tools/x"));
  EXPECT_EQ(Parse("c.yml", "command: [cat]\ncwd: work\n").cwd, "/srv/agents/work");
}

TEST(ParseAgentFile, PassEnv_NamesWorkerVariablesButNeverTheWorkerToken) {
  EXPECT_THAT(Parse("p.yaml", "command: [cat]\npassEnv: [ANTHROPIC_API_KEY, GH_TOKEN]\n").pass_env,
              ElementsAre("ANTHROPIC_API_KEY", "GH_TOKEN"));
  EXPECT_THAT(ParseError("p.yaml", "command: [cat]\npassEnv: [TASKBOARD_TOKEN]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'passEnv': TASKBOARD_TOKEN is the worker's own token and "
                                 "is never passed to agents or tools")));
  EXPECT_THAT(ParseError("p.yaml", "command: [cat]\npassEnv: [\"1X\"]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'1X' is not a variable")));
  EXPECT_THAT(ParseError("p.yaml", "command: [cat]\npassEnv: GH_TOKEN\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'passEnv' must be an array of strings")));
}

TEST(ParseAgentFile, Shell_RunsTheStringWithBinSh) {
  AgentDefinition def =
      Parse("s.yaml", "command: echo \"$TASKBOARD_PROMPT\" | wc -c\nshell: true\n");
  EXPECT_THAT(def.argv, ElementsAre("/bin/sh", "-c", "echo \"$TASKBOARD_PROMPT\" | wc -c"));
}

TEST(ParseAgentFile, Markdown_FrontmatterFieldsAndBodyAsSystemPrompt) {
  AgentDefinition def = Parse("reviewer.md", R"(---
description: Reviews code
model: gpt-4.1
tools: [read_file, list_dir]
thinking: high
---

You review code.
Be brief.
)");
  EXPECT_EQ(def.name, "reviewer");
  EXPECT_EQ(def.type, AgentType::kLlm);  // no command: an LLM agent, pi style
  EXPECT_EQ(def.model, "gpt-4.1");
  EXPECT_THAT(def.tools, ElementsAre("read_file", "list_dir"));
  EXPECT_EQ(def.system_prompt, "You review code.\nBe brief.");
}

TEST(ParseAgentFile, Markdown_CommandAgentWithBody) {
  AgentDefinition def = Parse("w.md", "---\nname: writer\ncommand: [./writer.sh]\n---\nNotes\n");
  EXPECT_EQ(def.name, "writer");
  EXPECT_EQ(def.type, AgentType::kCommand);
  EXPECT_THAT(def.argv, ElementsAre("/srv/agents/writer.sh"));
  EXPECT_EQ(def.system_prompt, "Notes");
}

TEST(ParseAgentFile, Markdown_WithoutFrontmatter_IsAllBody) {
  AgentDefinition def = Parse("helper.md", "Just a prompt.\n");
  EXPECT_EQ(def.name, "helper");
  EXPECT_EQ(def.type, AgentType::kLlm);
  EXPECT_EQ(def.system_prompt, "Just a prompt.");
}

TEST(ParseAgentFile, Markdown_UnclosedFrontmatter_Fails) {
  EXPECT_THAT(ParseError("x.md", "---\nname: x\nbody\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("agent file /srv/agents/x.md: the frontmatter opened")));
}

TEST(ParseAgentFile, UnknownField_ErrorNamesFileAndField) {
  EXPECT_THAT(ParseError("a.yaml", "command: [cat]\ncomand: [cat]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("agent file /srv/agents/a.yaml: unknown field 'comand'")));
}

TEST(ParseAgentFile, CommandString_WithoutShell_Fails) {
  EXPECT_THAT(ParseError("a.yaml", "command: ./run.sh --x\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'command' is a string: give an argv array, or set "
                                 "`shell: true`")));
}

TEST(ParseAgentFile, CommandAgentWithoutCommand_Fails) {
  EXPECT_THAT(ParseError("a.json", R"({"type": "command"})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'command' is required for a command agent")));
}

TEST(ParseAgentFile, CommandOnNoopAgent_Fails) {
  EXPECT_THAT(ParseError("a.yaml", "type: noop\ncommand: [cat]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("applies only to command agents, and this one has type 'noop'")));
}

TEST(ParseAgentFile, WrongTypes_NameTheField) {
  EXPECT_THAT(ParseError("a.yaml", "command: [cat]\ntimeoutSeconds: 0\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'timeoutSeconds' must be a whole number of seconds > 0")));
  EXPECT_THAT(ParseError("a.yaml", "command: [cat, 3]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("field 'command' must be an array of strings, got a number")));
  EXPECT_THAT(
      ParseError("a.yaml", "command: [cat]\ntype: robot\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown agent type 'robot'")));
  EXPECT_THAT(ParseError("a.yaml", "name: has space\ncommand: [cat]\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a valid agent name")));
  EXPECT_THAT(ParseError("a.yaml", "- a list\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("expected an object of agent fields")));
}

TEST(ParseAgentFile, SyntaxErrors_NameTheFile) {
  EXPECT_THAT(ParseError("a.json", "{\"command\": [\"cat\"]"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("agent file /srv/agents/a.json: invalid JSON")));
  EXPECT_THAT(ParseError("a.yaml", "command: [cat\n"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("agent file /srv/agents/a.yaml: invalid YAML at line")));
}

TEST(IsAgentFile, ByExtension) {
  EXPECT_TRUE(IsAgentFile("a.json"));
  EXPECT_TRUE(IsAgentFile("a.YAML"));
  EXPECT_TRUE(IsAgentFile("a.yml"));
  EXPECT_TRUE(IsAgentFile("a.md"));
  EXPECT_FALSE(IsAgentFile("a.sh"));
  EXPECT_FALSE(IsAgentFile("README"));
}

}  // namespace
}  // namespace taskboard::worker
