#include "scheduler/engine/run_task_graph.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

store::TaskRecord Task(const std::string& id, const std::vector<std::string>& deps,
                       v1::TaskState state = v1::TASK_STATE_READY) {
  store::TaskRecord task;
  task.mutable_task()->set_task_id(id);
  task.mutable_task()->set_phase_id(id);
  task.mutable_task()->set_state(state);
  for (const std::string& dep : deps) task.mutable_task()->add_deps(dep);
  return task;
}

std::vector<std::string> DepIds(const RunTaskGraph& graph, const std::string& task_id) {
  std::vector<std::string> ids;
  for (const policy::TaskKey& dep : graph.DirectDeps({"run-1", task_id})) {
    EXPECT_EQ(dep.run_id, "run-1");
    ids.push_back(dep.task_id);
  }
  return ids;
}

TEST(RunTaskGraph, Board_DepsAreTheTaskRecordsDepsOnceEach) {
  store::RunRecord record;
  record.mutable_run()->set_run_id("run-1");
  RunState run(std::move(record));
  run.PutTask(Task("fetch", {}, v1::TASK_STATE_COMPLETED));
  run.PutTask(Task("lint", {}, v1::TASK_STATE_COMPLETED));
  run.PutTask(Task("fix", {"fetch", "lint", "fetch"}));
  v1::FlowSpec spec;
  for (const char* id : {"fetch", "lint", "fix"}) spec.mutable_board()->add_tasks()->set_id(id);

  RunTaskGraph graph(spec, &run);
  EXPECT_THAT(DepIds(graph, "fix"), ElementsAre("fetch", "lint"));
  EXPECT_THAT(DepIds(graph, "fetch"), IsEmpty());
  EXPECT_THAT(DepIds(graph, "missing"), IsEmpty());
  EXPECT_THAT(graph.DirectDeps({"run-2", "fix"}), IsEmpty());
  EXPECT_TRUE(graph.IsCompleted({"run-1", "fetch"}));
  EXPECT_FALSE(graph.IsCompleted({"run-1", "fix"}));
}

TEST(RunTaskGraph, Taskflow_AMapPhasesItemsAreEachDependentsDeps) {
  store::RunRecord record;
  record.mutable_run()->set_run_id("run-1");
  RunState run(std::move(record));
  store::TaskRecord item0 = Task("scan[0]", {});
  item0.mutable_task()->set_phase_id("scan");
  store::TaskRecord item1 = Task("scan[1]", {});
  item1.mutable_task()->set_phase_id("scan");
  run.PutTask(item0);
  run.PutTask(item1);
  run.PutTask(Task("report", {}));
  v1::FlowSpec spec;
  spec.mutable_taskflow()->add_phases()->set_id("scan");
  v1::Phase& report = *spec.mutable_taskflow()->add_phases();
  report.set_id("report");
  report.add_depends_on("scan");

  RunTaskGraph graph(spec, &run);
  EXPECT_THAT(DepIds(graph, "report"), ElementsAre("scan[0]", "scan[1]"));
}

}  // namespace
}  // namespace taskboard::engine
