#ifndef TASKBOARD_TESTS_UNIT_POLICY_LEDGER_FIXTURE_H_
#define TASKBOARD_TESTS_UNIT_POLICY_LEDGER_FIXTURE_H_

// Observation builders and the seed's fixture ledger (seed 000's flow-policy
// tests): five calls t1..t5 with args {"i":N} and result "rN" -- t1, t2 by
// task a; t3 and t4 (cached) by task b; t5 by no task. Every one estimates
// at 3 tokens (ceil((7 + 4) / 4)).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/policy/request_ledger.h"
#include "scheduler/policy/task_key.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy::fixture {

inline constexpr char kRun[] = "run-1";

inline TaskKey Task(const std::string& task_id) { return TaskKey{kRun, task_id}; }

inline v1::Observation Obs(const std::string& task_id, const std::string& tool,
                           const std::string& args_json, const std::string& result_json,
                           bool cached = false, const std::string& run_id = kRun) {
  v1::Observation obs;
  obs.set_run_id(run_id);
  obs.set_task_id(task_id);
  obs.set_tool_name(tool);
  obs.set_args_json(args_json);
  obs.set_result_json(result_json);
  obs.set_cached(cached);
  return obs;
}

inline v1::Observation ErrorObs(const std::string& task_id, const std::string& tool,
                                const std::string& args_json, const std::string& error,
                                const std::string& run_id = kRun) {
  v1::Observation obs = Obs(task_id, tool, args_json, "", false, run_id);
  obs.set_error(error);
  return obs;
}

inline void AppendSeedFixture(RequestLedger& ledger) {
  const char* const tasks[] = {"a", "a", "b", "b", ""};
  for (int i = 1; i <= 5; ++i) {
    ledger.Append(Obs(tasks[i - 1], absl::StrCat("t", i), absl::StrCat("{\"i\":", i, "}"),
                      absl::StrCat("\"r", i, "\""), /*cached=*/i == 4));
  }
}

// Ledger seqs of a selection, for compact assertions.
inline std::vector<int64_t> Seqs(const v1::PriorWork& prior_work) {
  std::vector<int64_t> seqs;
  for (const v1::Observation& obs : prior_work.observations()) seqs.push_back(obs.seq());
  return seqs;
}

inline std::vector<std::string> Tools(const v1::PriorWork& prior_work) {
  std::vector<std::string> tools;
  for (const v1::Observation& obs : prior_work.observations()) tools.push_back(obs.tool_name());
  return tools;
}

}  // namespace taskboard::policy::fixture

#endif  // TASKBOARD_TESTS_UNIT_POLICY_LEDGER_FIXTURE_H_
