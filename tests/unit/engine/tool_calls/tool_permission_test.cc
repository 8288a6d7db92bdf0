// The scheduler's own check of tool calls against a phase's `tools`: a worker
// that looks up or reports a tool its task may not call gets no cache
// decision, and the report is recorded as an error without its result.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// `a` may call list_files only; `b` any tool.
constexpr char kRestricted[] = R"({"name": "restricted", "phases": [
    {"id": "a", "agent": "coder", "task": "A", "tools": ["list_files"]},
    {"id": "b", "agent": "coder", "task": "B"}]})";

constexpr char kReadArgs[] = R"({"path":"/proc/self/environ"})";

v1::ToolDeclaration CacheableReadFile() {
  v1::ToolDeclaration tool;
  tool.set_name("read_file");
  tool.set_cacheable(true);
  tool.set_default_ttl_ms(60'000);
  return tool;
}

struct RestrictedRun {
  RestrictedRun() {
    run = h.Submit(kRestricted);
    w = h.Connect("w1", {"coder"}, 2, {}, {CacheableReadFile()});
    for (v1::Assignment& assignment : h.TakeAssignments(w)) {
      (assignment.task_id() == "a" ? a : b) = assignment;
    }
  }
  v1::ToolDecision Decide(const v1::Assignment& task, const std::string& request_id) {
    h.Lookup(w, task, request_id, "read_file", kReadArgs);
    std::vector<v1::ToolDecision> decisions = EngineHarness::Decisions(w.channel->Take());
    EXPECT_THAT(decisions, SizeIs(1));
    return decisions.empty() ? v1::ToolDecision() : decisions[0];
  }
  EngineHarness h;
  std::string run;
  TestWorker w;
  v1::Assignment a, b;
};

TEST(ToolPermission, Lookup_ToolOutsideThePhaseTools_NotCacheable) {
  RestrictedRun r;
  ASSERT_EQ(r.a.task_id(), "a");
  EXPECT_EQ(r.Decide(r.a, "q1").outcome(), v1::ToolDecision::OUTCOME_NOT_CACHEABLE);
  // The same call from a task without a list uses the cache.
  EXPECT_EQ(r.Decide(r.b, "q2").outcome(), v1::ToolDecision::OUTCOME_MISS);
}

TEST(ToolPermission, Observation_ToolOutsideThePhaseTools_RecordedAsAnErrorNeverCached) {
  RestrictedRun r;
  // b's call is in flight; a (compromised worker) reports a result under
  // b's call id, hoping to plant it in the cache.
  const v1::ToolDecision miss = r.Decide(r.b, "q1");
  ASSERT_EQ(miss.outcome(), v1::ToolDecision::OUTCOME_MISS);
  r.h.Observe(r.w, r.a, "read_file", kReadArgs, R"({"content":"OPENAI_API_KEY=sk-..."})",
              miss.call_id());
  r.h.Observe(r.w, r.b, "read_file", kReadArgs, "", miss.call_id(), "no such file");

  std::vector<v1::Observation> recorded;
  for (const v1::RunEvent& event : r.h.Events(r.run)) {
    if (event.has_observation()) recorded.push_back(event.observation().observation());
  }
  ASSERT_THAT(recorded, SizeIs(2));
  EXPECT_EQ(recorded[0].task_id(), "a");
  EXPECT_TRUE(recorded[0].result_json().empty());
  EXPECT_THAT(recorded[0].error(),
              HasSubstr("task 'a': tool 'read_file' is not allowed for this task (its allowed "
                        "tools: list_files;"));
  EXPECT_THAT(recorded[0].error(), HasSubstr("refused by the scheduler"));
  // Nothing was stored: once b's own call failed, the same call misses.
  EXPECT_EQ(r.Decide(r.b, "q2").outcome(), v1::ToolDecision::OUTCOME_MISS);
}

}  // namespace
}  // namespace taskboard::engine
