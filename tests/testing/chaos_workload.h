#ifndef TASKBOARD_TESTS_TESTING_CHAOS_WORKLOAD_H_
#define TASKBOARD_TESTS_TESTING_CHAOS_WORKLOAD_H_

// The chaos tests' mixed workload (tests/chaos/chaos_suite_test.cc with one
// scheduler, tests/ha/leader_kills_test.cc with replicas): a board, a
// taskflow whose map phase fans out over items, and a plan-and-execute run
// whose llm agents talk to tools/fake-llm, all calling one cacheable command
// tool, `lookup`. Everything that varies (which tasks call the tool and
// with which key, their sleeps, the map items) comes from a seed, so a
// failure reproduces with TASKBOARD_CHAOS_SEED=N (docs/development.md).
//
// The agents it needs: `echo` and `helper` (the board, alternately) and
// `mapper` (the map run), command agents running the integration agents'
// script.sh (tests/testing/chaos_helpers.h LoggingAgents), and the llm
// agents `planner`, `executor` and `synthesizer` (WriteLlmAgents).

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/json.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::testing {

// The seed when TASKBOARD_CHAOS_SEED is unset.
inline constexpr uint32_t kDefaultChaosSeed = 20250611;
// TASKBOARD_CHAOS_SEED, or kDefaultChaosSeed.
uint32_t ChaosSeed();

// How big each part of the workload is.
struct ChaosWorkloadSizes {
  int board_tasks = 3000;
  int map_items = 300;
  int plan_steps = 12;
};

// One task's prompt for script.sh and what it must output: a short sleep
// printing a line, or a tool call printing the tool's result.
struct Step {
  std::string prompt;
  std::string expected_output;  // when `tool_key` is empty
  std::string tool_key;
};

struct Workload {
  std::vector<Step> board;
  std::vector<Step> map_items;
  // The key each plan step's lookup call uses.
  std::vector<std::string> plan_keys;
  // How many calls each tool key gets across the workload.
  std::map<std::string, int> tool_calls;
};

// Board tasks: one in five calls the tool with one of 40 keys (so most calls
// of a key come after its first, and some overlap it); the rest sleep
// 10-50 ms. Map items: one in three calls the tool with one of 20 keys, the
// rest sleep 100-300 ms, so the map phase lasts through much of the board.
// Plan steps share 3 keys. The board's, the map's and the plan's keys differ
// (board-N, map-N, plan-N).
Workload MakeWorkload(uint32_t seed, const ChaosWorkloadSizes& sizes = {});

// A tool call step for `key`, as the board and the map items make them.
Step ToolStep(const std::string& key);

// What one call of the tool returns: its arguments echoed under a fixed
// fact, so a cached result and a fresh one are indistinguishable.
Json ToolResult(const std::string& key);

// The board (tasks t0..tN-1, at most 10 in flight: the dispatcher drains
// one agent's queue before the next, so an unbounded board would keep the
// map and plan tasks waiting until it ends).
std::string BoardFlow(const Workload& workload);

// `prepare` prints the items (so the fan-out happens when it finishes,
// possibly across a restart), `each` maps over them 3 at a time, and
// `summary` echoes the map's merged output.
std::string MapFlow(const Workload& workload);

// The plan-and-execute run, two steps at a time.
std::string PlanFlow();

// What the plan's synthesizer answers: the plan run's output.
inline constexpr char kPlanSynthesis[] = "Chaos plan finished.";

// The fake model's script: the plan (two chains of steps, each step after
// the one two before it), then per step a lookup call and an answer naming
// the step, each reply delayed 700 ms so the run lasts through several
// kills.
std::string PlanScript(const Workload& workload);

// Writes the llm agents planner, executor (with the lookup tool) and
// synthesizer into `dir`, pointed at the fake model at `base_url`.
void WriteLlmAgents(const std::filesystem::path& dir, const std::string& base_url);

// A task's output against its step: the line it prints, or the tool's
// result as JSON (gtest expectations).
void ExpectStepOutput(const Step& step, const v1::Task& task);

// The three finished runs' outputs (gtest expectations): every board task's
// line or tool result; every map item's, merged in item order into the
// map's output; every plan step answered with its own summary and the
// synthesis as the plan run's output.
void ExpectWorkloadOutputs(const Workload& workload, const v1::Run& board, const v1::Run& map,
                           const v1::Run& plan);

// How often each plan task's llm agent ran, from the model's side (the fake
// model's `requests`): every execution starts with one request without tool
// results.
std::map<std::string, int> PlanExecutions(const v1::Run& run, const std::vector<Json>& requests);

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_CHAOS_WORKLOAD_H_
