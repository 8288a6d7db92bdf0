#include "tests/testing/chaos_workload.h"

#include <cstdlib>
#include <fstream>
#include <random>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/canonical_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::testing {
namespace {

using ::testing::HasSubstr;

Step SleepStep(std::mt19937& rng, int min_ms, int spread_ms, const std::string& text) {
  const int ms = min_ms + static_cast<int>(rng() % spread_ms);
  return {absl::StrCat("sleep ", ms / 1000, ".", absl::StrFormat("%03d", ms % 1000), " ", text),
          absl::StrCat(text, "\n"), ""};
}

std::string PlanStepId(int index) { return absl::StrCat("s", index + 1); }

bool HasToolMessages(const Json& request) {
  for (const Json& message : request.value("messages", Json::array())) {
    if (message.value("role", "") == "tool") return true;
  }
  return false;
}

std::string MessagesOfRole(const Json& request, const std::string& role) {
  std::string text;
  for (const Json& message : request.value("messages", Json::array())) {
    if (message.value("role", "") == role) absl::StrAppend(&text, message.value("content", ""));
  }
  return text;
}

}  // namespace

uint32_t ChaosSeed() {
  const char* seed = std::getenv("TASKBOARD_CHAOS_SEED");
  return seed != nullptr ? static_cast<uint32_t>(std::strtoul(seed, nullptr, 10))
                         : kDefaultChaosSeed;
}

Step ToolStep(const std::string& key) {
  return {absl::StrCat("tool lookup {\"topic\":\"", key, "\"}"), "", key};
}

Json ToolResult(const std::string& key) {
  return {{"fact", "looked up"}, {"args", {{"topic", key}}}};
}

Workload MakeWorkload(uint32_t seed, const ChaosWorkloadSizes& sizes) {
  std::mt19937 rng(seed);
  Workload workload;
  for (int i = 0; i < sizes.board_tasks; ++i) {
    if (rng() % 5 == 0) {
      workload.board.push_back(ToolStep(absl::StrCat("board-", rng() % 40)));
    } else {
      workload.board.push_back(SleepStep(rng, 10, 41, absl::StrCat("done ", i)));
    }
  }
  for (int i = 0; i < sizes.map_items; ++i) {
    if (rng() % 3 == 0) {
      workload.map_items.push_back(ToolStep(absl::StrCat("map-", rng() % 20)));
    } else {
      workload.map_items.push_back(SleepStep(rng, 100, 201, absl::StrCat("item ", i)));
    }
  }
  for (int i = 0; i < sizes.plan_steps; ++i) {
    workload.plan_keys.push_back(absl::StrCat("plan-", i % 3));
  }
  for (const auto* steps : {&workload.board, &workload.map_items}) {
    for (const Step& step : *steps) {
      if (!step.tool_key.empty()) ++workload.tool_calls[step.tool_key];
    }
  }
  for (const std::string& key : workload.plan_keys) ++workload.tool_calls[key];
  return workload;
}

std::string BoardFlow(const Workload& workload) {
  Json tasks = Json::array();
  for (size_t i = 0; i < workload.board.size(); ++i) {
    tasks.push_back({{"id", absl::StrCat("t", i)},
                     {"agent", i % 2 == 0 ? "echo" : "helper"},
                     {"task", workload.board[i].prompt}});
  }
  return DumpJson({{"name", "chaos-board"},
                   {"kind", "board"},
                   {"board", {{"concurrency", 10}, {"tasks", tasks}}}});
}

std::string MapFlow(const Workload& workload) {
  Json items = Json::array();
  for (const Step& step : workload.map_items) items.push_back({{"cmd", step.prompt}});
  Json phases = Json::array();
  phases.push_back({{"id", "prepare"},
                    {"agent", "mapper"},
                    {"output", "json"},
                    {"task", absl::StrCat("echo ", DumpJson(items))}});
  phases.push_back({{"id", "each"},
                    {"type", "map"},
                    {"dependsOn", {"prepare"}},
                    {"over", "{steps.prepare.json}"},
                    {"agent", "mapper"},
                    {"concurrency", 3},
                    {"task", "{item.cmd}"}});
  phases.push_back({{"id", "summary"},
                    {"type", "reduce"},
                    {"from", {"each"}},
                    {"agent", "mapper"},
                    {"task", "echo {steps.each.output}"}});
  return DumpJson({{"name", "chaos-map"}, {"phases", phases}});
}

std::string PlanFlow() {
  return R"yaml(
name: chaos-plan
kind: plan_and_execute
planAndExecute:
  goal: Look up every chaos topic
  plannerAgent: planner
  executorAgent: executor
  synthesizerAgent: synthesizer
  maxConcurrency: 2
)yaml";
}

std::string PlanScript(const Workload& workload) {
  const int steps = static_cast<int>(workload.plan_keys.size());
  Json tasks = Json::array();
  for (int i = 0; i < steps; ++i) {
    Json task = {{"id", PlanStepId(i)}, {"goal", absl::StrCat("Look up topic ", i + 1)}};
    if (i >= 2) task["deps"] = Json::array({PlanStepId(i - 2)});
    tasks.push_back(task);
  }
  Json rules = Json::array();
  rules.push_back({{"name", "plan"},
                   {"match", {{"system_contains", "You plan"}}},
                   {"respond", {{"content", {{"tasks", tasks}}}}}});
  rules.push_back({{"name", "synthesize"},
                   {"match", {{"system_contains", "You synthesize"}}},
                   {"respond", {{"content", kPlanSynthesis}}}});
  for (int i = 0; i < steps; ++i) {
    const std::string step = absl::StrCat("Your step (", PlanStepId(i), ")");
    rules.push_back(
        {{"name", absl::StrCat(PlanStepId(i), "-calls")},
         {"match", {{"last_user_contains", step}, {"has_tool_results", false}}},
         {"respond",
          {{"tool_calls",
            Json::array({{{"name", "lookup"}, {"arguments", {{"topic", workload.plan_keys[i]}}}}})},
           {"delay_ms", 700}}}});
    rules.push_back(
        {{"name", absl::StrCat(PlanStepId(i), "-answers")},
         {"match", {{"last_user_contains", step}, {"has_tool_results", true}}},
         {"respond",
          {{"content", {{"summary", absl::StrCat(PlanStepId(i), " done")}, {"success", true}}},
           {"delay_ms", 700}}}});
  }
  return DumpJson({{"rules", rules}});
}

void WriteLlmAgents(const std::filesystem::path& dir, const std::string& base_url) {
  const std::pair<const char*, const char*> agents[] = {{"planner", "You plan work."},
                                                        {"executor", "You execute one step."},
                                                        {"synthesizer", "You synthesize results."}};
  for (const auto& [name, system] : agents) {
    std::ofstream(dir / absl::StrCat(name, ".md")) << LlmAgentFileText(
        name, base_url, std::string(name) == "executor" ? "tools: [lookup]\n" : "", system);
  }
}

void ExpectStepOutput(const Step& step, const v1::Task& task) {
  if (step.tool_key.empty()) {
    EXPECT_EQ(task.output(), step.expected_output) << task.task_id();
    return;
  }
  absl::StatusOr<Json> output = ParseJson(task.output());
  ASSERT_THAT(output.status(), IsOk()) << task.task_id() << ": " << task.output();
  EXPECT_EQ(CanonicalJson(*output), CanonicalJson(ToolResult(step.tool_key))) << task.task_id();
}

void ExpectWorkloadOutputs(const Workload& workload, const v1::Run& board, const v1::Run& map,
                           const v1::Run& plan) {
  ASSERT_EQ(board.tasks_size(), static_cast<int>(workload.board.size()));
  for (const v1::Task& task : board.tasks()) {
    EXPECT_EQ(task.state(), v1::TASK_STATE_COMPLETED) << task.task_id();
    ExpectStepOutput(workload.board.at(std::stoi(task.task_id().substr(1))), task);
  }
  const int items = static_cast<int>(workload.map_items.size());
  ASSERT_EQ(map.tasks_size(), items + 2);
  std::vector<std::string> sections(items);
  for (const v1::Task& task : map.tasks()) {
    if (task.phase_id() != "each") continue;
    ExpectStepOutput(workload.map_items.at(task.item_index()), task);
    sections.at(task.item_index()) =
        absl::StrCat("### [", task.item_index() + 1, "/", items, "] mapper\n\n", task.output());
  }
  EXPECT_EQ(map.output(), absl::StrCat(absl::StrJoin(sections, "\n\n---\n\n"), "\n"));
  EXPECT_EQ(plan.output(), kPlanSynthesis);
  int steps = 0;
  for (const v1::Task& task : plan.tasks()) {
    if (task.agent() != "executor") continue;
    ++steps;
    EXPECT_THAT(task.output(), HasSubstr(absl::StrCat(task.task_id(), " done")));
  }
  EXPECT_EQ(steps, static_cast<int>(workload.plan_keys.size()));
}

std::map<std::string, int> PlanExecutions(const v1::Run& run, const std::vector<Json>& requests) {
  std::map<std::string, int> executions;
  for (const Json& request : requests) {
    if (HasToolMessages(request)) continue;
    const std::string system = MessagesOfRole(request, "system");
    const std::string user = MessagesOfRole(request, "user");
    for (const v1::Task& task : run.tasks()) {
      bool mine = false;
      if (task.agent() == "planner") {
        mine = absl::StrContains(system, "You plan");
      } else if (task.agent() == "synthesizer") {
        mine = absl::StrContains(system, "You synthesize");
      } else {
        mine = absl::StrContains(user, absl::StrCat("Your step (", task.task_id(), ")"));
      }
      if (mine) ++executions[task.task_id()];
    }
  }
  return executions;
}

}  // namespace taskboard::testing
