#include "scheduler/engine/state/run_task_graph.h"

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

// Walking ancestors (`ancestors: transitive`) reads a taskflow task's phase
// from its id, so the tasks a run keeps serialized are not parsed for it.
TEST(RunTaskGraph, Taskflow_DepsFromTaskIds_KeptTasksNotParsed) {
  store::RunRecord record;
  record.mutable_run()->set_run_id("run-1");
  RunState run(std::move(record));
  for (const char* id : {"scan[0]", "scan[1]"}) {
    store::TaskRecord item = Task(id, {}, v1::TASK_STATE_COMPLETED);
    item.mutable_task()->set_phase_id("scan");
    run.PutTask(item);
  }
  store::TaskRecord fix0 = Task("fix[0]", {});
  fix0.mutable_task()->set_phase_id("fix");
  run.PutTask(fix0);
  run.PutTask(Task("report", {}));
  RunState::Changes changes = run.TakeChanges();
  run.Freeze();
  ASSERT_EQ(run.ParsedTaskCount(), 0u);
  v1::FlowSpec spec;
  spec.mutable_taskflow()->add_phases()->set_id("scan");
  v1::Phase& fix = *spec.mutable_taskflow()->add_phases();
  fix.set_id("fix");
  fix.add_depends_on("scan");
  v1::Phase& report = *spec.mutable_taskflow()->add_phases();
  report.set_id("report");
  report.add_depends_on("fix");

  RunTaskGraph graph(spec, &run);
  EXPECT_THAT(DepIds(graph, "fix[0]"), ElementsAre("scan[0]", "scan[1]"));
  EXPECT_THAT(DepIds(graph, "report"), ElementsAre("fix[0]"));
  EXPECT_THAT(DepIds(graph, "scan[1]"), IsEmpty());
  EXPECT_THAT(DepIds(graph, "fix[7]"), IsEmpty());  // no such task
  EXPECT_TRUE(graph.IsCompleted({"run-1", "scan[0]"}));
  EXPECT_EQ(run.ParsedTaskCount(), 0u);
}

}  // namespace
}  // namespace taskboard::engine
