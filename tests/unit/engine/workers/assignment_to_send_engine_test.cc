// A taskflow or board task's record stores its assignment without what the
// task and its run already say (ids, agent, role, phase, item, the run's
// args); the worker is sent it whole, and records stored whole (before
// this change, and the pattern drivers') are sent as they are.

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/workers/assignment_to_send.h"
#include "scheduler/flow/proto_value.h"
#include "scheduler/store/keys.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::taskboard::testing::IsOk;
using ::testing::SizeIs;

constexpr char kFlow[] = R"({"name": "f", "args": {"topic": {"default": "frogs"}},
    "phases": [
      {"id": "a", "agent": "coder", "task": "write about {args.topic}"},
      {"id": "m", "type": "map", "agent": "critic", "task": "check {item}", "over": ["x", "y"]}]})";

store::TaskRecord StoredTask(EngineHarness& h, const std::string& run, const std::string& task) {
  absl::StatusOr<std::optional<std::string>> bytes =
      h.store().Get(store::Column::kTasks, store::keys::Task(run, task));
  EXPECT_TRUE(bytes.ok() && bytes->has_value()) << task;
  store::TaskRecord record;
  if (bytes.ok() && bytes->has_value()) EXPECT_TRUE(record.ParseFromString(**bytes));
  return record;
}

TEST(AssignmentToSend, NewTask_StoredWithoutWhatTheTaskSaysAndSentWhole) {
  EngineHarness h;
  const std::string run = h.Submit(kFlow);
  const store::TaskRecord stored = StoredTask(h, run, "m[1]");
  EXPECT_EQ(stored.assignment().prompt(), "check y");
  EXPECT_EQ(stored.assignment().task_id(), "");
  EXPECT_EQ(stored.assignment().run_id(), "");
  EXPECT_EQ(stored.assignment().agent(), "");
  EXPECT_FALSE(stored.assignment().has_args());

  TestWorker w = h.Connect("w1", {"coder", "critic"}, /*slots=*/8);
  std::map<std::string, v1::Assignment> sent;
  for (const v1::Assignment& a : h.TakeAssignments(w)) sent[a.task_id()] = a;
  ASSERT_THAT(sent, SizeIs(3));
  const v1::Assignment& item = sent["m[1]"];
  EXPECT_EQ(item.run_id(), run);
  EXPECT_EQ(item.root_run_id(), h.ReadRunView(run).root_run_id());
  EXPECT_EQ(item.agent(), "critic");
  EXPECT_EQ(item.role(), "map_item");
  EXPECT_EQ(item.phase_id(), "m");
  EXPECT_EQ(item.item_index(), 1);
  EXPECT_EQ(item.prompt(), "check y");
  EXPECT_EQ(item.args().fields().at("topic").string_value(), "frogs");
  EXPECT_EQ(item.attempt(), 1);
  EXPECT_FALSE(item.lease_id().empty());
  EXPECT_EQ(sent["a"].role(), "phase");
  EXPECT_EQ(sent["a"].prompt(), "write about frogs");
}

// A run stored by a scheduler from before this change (each task record
// with its whole assignment) recovers, is sent the assignments as stored,
// and finishes.
TEST(AssignmentToSend, RecoveredRecordsWithTheWholeAssignment_SentAsStoredAndTheRunFinishes) {
  EngineHarness h;
  const std::string run = h.Submit(kFlow);
  // Rewrite the records in the old layout: the whole assignment, as the
  // taskflow driver stored it, marked so the test sees which one is sent.
  absl::StatusOr<std::optional<std::string>> run_bytes =
      h.store().Get(store::Column::kRuns, store::keys::Run(run));
  ASSERT_TRUE(run_bytes.ok() && run_bytes->has_value());
  store::RunRecord run_record;
  ASSERT_TRUE(run_record.ParseFromString(**run_bytes));
  store::WriteBatch old_layout;
  for (const std::string task : {"a", "m[0]", "m[1]"}) {
    store::TaskRecord record = StoredTask(h, run, task);
    *record.mutable_assignment() = AssignmentToSend(record, run_record);
    ASSERT_EQ(record.assignment().task_id(), task);
    record.mutable_assignment()->set_cwd("/stored-whole");
    old_layout.Put(store::Column::kTasks, store::keys::Task(run, task), record.SerializeAsString());
  }
  ASSERT_THAT(h.store().Write(old_layout), IsOk());
  h.Restart();

  TestWorker w = h.Connect("w1", {"coder", "critic"}, /*slots=*/8);
  std::vector<v1::Assignment> sent = h.TakeAssignments(w);
  ASSERT_THAT(sent, SizeIs(3));
  for (const v1::Assignment& a : sent) {
    EXPECT_EQ(a.cwd(), "/stored-whole") << a.task_id();
    EXPECT_EQ(a.run_id(), run);
    EXPECT_EQ(a.args().fields().at("topic").string_value(), "frogs");
    h.Finish(w, a, true, "done");
  }
  EXPECT_EQ(h.Status(run), v1::RUN_STATUS_COMPLETED);
}

}  // namespace
}  // namespace taskboard::engine
