#ifndef TASKBOARD_TESTS_TESTING_CHAOS_HELPERS_H_
#define TASKBOARD_TESTS_TESTING_CHAOS_HELPERS_H_

// What the chaos tests (tests/chaos, tests/ha) count and check with: command agents
// that log every execution themselves, so a test counts what really ran
// rather than what the scheduler believes ran, and the checks every run's
// event log must pass however often its processes were killed.

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.pb.h"
#include "tests/testing/cluster.h"

namespace taskboard::testing {

// Writes into `dir` one command agent per entry of `logs` (agent name ->
// execution log), each running the integration agents' script.sh (the
// prompt is a tiny script) with EXECUTION_LOG set, so that every execution
// first appends "TASK_ID ATTEMPT" to its log. Several agents may share a
// log. Returns `dir` as a worker's --agents value.
inline std::string LoggingAgents(const std::filesystem::path& dir,
                                 const std::map<std::string, std::filesystem::path>& logs) {
  const std::filesystem::path shared = SourcePath("tests/integration/agents");
  std::filesystem::copy_file(shared / "script.sh", dir / "script.sh",
                             std::filesystem::copy_options::overwrite_existing);
  for (const auto& [name, log] : logs) {
    std::ofstream(dir / (name + ".yaml"))
        << "name: " << name << "\ncommand: [\"./script.sh\"]\ntimeoutSeconds: 120\n"
        << "env: {EXECUTION_LOG: \"" << log.string() << "\"}\n";
  }
  return dir.string();
}

// How many times each task's agent ran, from a log LoggingAgents' agents
// write.
inline std::map<std::string, int> Executions(const std::filesystem::path& log) {
  std::map<std::string, int> runs;
  std::ifstream in(log);
  std::string task_id;
  int attempt = 0;
  while (in >> task_id >> attempt) ++runs[task_id];
  return runs;
}

// Writes the cacheable tool `lookup` (lookup.yaml, lookup.sh) into `dir`, a
// worker's --tools: it logs "WORKER_PID UNIX_MS ARGS" to `log` before doing
// anything, so an execution cut short by a kill still counts, then answers
// {"fact":"looked up","args":ARGS} after `seconds`. The worker is the parent
// of the tool's taskboard-reaper ($PPID). `scope`: its declared cache scope
// (empty: the default, `run`).
inline void WriteLookupTool(const std::filesystem::path& dir, const std::filesystem::path& log,
                            const std::string& seconds, const std::string& scope = "") {
  std::ofstream(dir / "lookup.sh")
      << "#!/bin/sh\nargs=$(cat)\n"
      << "worker=$(sed -n 's/^PPid:[[:space:]]*//p' \"/proc/$PPID/status\")\n"
      << "printf '%s %s %s\\n' \"$worker\" \"$(date +%s%3N)\" \"$args\""
      << " >> '" << log.string() << "'\n"
      << "sleep " << seconds << "\n"
      << "printf '{\"fact\":\"looked up\",\"args\":%s}\\n' \"$args\"\n";
  std::filesystem::permissions(dir / "lookup.sh", std::filesystem::perms::owner_all);
  std::ofstream(dir / "lookup.yaml")
      << "name: lookup\ndescription: Looks up a fact about a topic\n"
      << "parameters: {type: object, properties: {topic: {type: string}}, required: [topic]}\n"
      << "command: [\"./lookup.sh\"]\ncacheable: true\nttl_ms: 600000\n"
      << (scope.empty() ? "" : "scope: " + scope + "\n");
}

// One real execution of the lookup tool, from its log.
struct ToolExecution {
  pid_t pid = 0;  // the worker's
  int64_t ms = 0;
};

// The lookup tool's executions by key (its `topic` argument).
inline std::map<std::string, std::vector<ToolExecution>> ToolExecutions(
    const std::filesystem::path& log) {
  std::map<std::string, std::vector<ToolExecution>> executions;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    ToolExecution execution;
    std::string args;
    fields >> execution.pid >> execution.ms >> args;
    // A tool started by a worker killed before it could hand over the
    // arguments (reparented to init, stdin closed empty) did no call.
    if (args.empty() && execution.pid == 1) continue;
    absl::StatusOr<Json> parsed = ParseJson(args);
    const std::string key =
        parsed.ok() && parsed->is_object() ? parsed->value("topic", args) : args;
    executions[key].push_back(execution);
  }
  return executions;
}

// Every event seq 1..N exactly once, run_finished last, and each of the
// run's `tasks` tasks committed COMPLETED exactly once.
inline void ExpectCleanEventLog(const std::vector<v1::RunEvent>& events, int tasks) {
  ASSERT_FALSE(events.empty());
  for (size_t i = 0; i < events.size(); ++i) {
    ASSERT_EQ(events[i].seq(), static_cast<int64_t>(i + 1)) << "gap or repeat at index " << i;
  }
  EXPECT_TRUE(events.back().has_run_finished());
  std::map<std::string, int> completions;
  for (const v1::RunEvent& event : events) {
    if (event.has_task_change() && event.task_change().task().state() == v1::TASK_STATE_COMPLETED) {
      ++completions[event.task_change().task().task_id()];
    }
  }
  EXPECT_EQ(completions.size(), static_cast<size_t>(tasks));
  for (const auto& [task, count] : completions) EXPECT_EQ(count, 1) << task;
}

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_CHAOS_HELPERS_H_
