#include <string>

#include "absl/container/flat_hash_set.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::flow {
namespace {

TEST(FlowKinds, NamesBlocksAndRunKinds_AreUnique) {
  absl::flat_hash_set<absl::string_view> names;
  absl::flat_hash_set<absl::string_view> blocks;
  absl::flat_hash_set<int> run_kinds;
  absl::flat_hash_set<int> spec_cases;
  int without_block = 0;
  for (const FlowKindInfo* kind : AllFlowKinds()) {
    EXPECT_TRUE(names.insert(kind->name).second) << kind->name;
    if (kind->block.empty()) {
      ++without_block;
    } else {
      EXPECT_TRUE(blocks.insert(kind->block).second) << kind->block;
    }
    EXPECT_TRUE(run_kinds.insert(kind->run_kind).second) << kind->name;
    EXPECT_TRUE(spec_cases.insert(kind->spec_case).second) << kind->name;
    EXPECT_NE(kind->run_kind, v1::FLOW_KIND_UNSPECIFIED) << kind->name;
  }
  // Only the default kind (taskflow) lives at the top of the document.
  EXPECT_EQ(without_block, 1);
  EXPECT_TRUE(AllFlowKinds().front()->block.empty());
}

TEST(FlowKinds, EveryKindOneofField_HasAKind) {
  const google::protobuf::OneofDescriptor* oneof =
      v1::FlowSpec::descriptor()->FindOneofByName("kind");
  ASSERT_NE(oneof, nullptr);
  EXPECT_EQ(oneof->field_count(), static_cast<int>(AllFlowKinds().size()));
  for (int i = 0; i < oneof->field_count(); ++i) {
    const auto spec_case = static_cast<v1::FlowSpec::KindCase>(oneof->field(i)->number());
    bool found = false;
    for (const FlowKindInfo* kind : AllFlowKinds()) found = found || kind->spec_case == spec_case;
    EXPECT_TRUE(found) << "FlowSpec." << oneof->field(i)->name()
                       << " has no FlowKindInfo in scheduler/flow/kinds/flow_kinds.cc";
  }
}

TEST(FlowKinds, EveryKind_HasItsFunctions) {
  for (const FlowKindInfo* kind : AllFlowKinds()) {
    EXPECT_NE(kind->decode, nullptr) << kind->name;
    EXPECT_NE(kind->encode, nullptr) << kind->name;
    EXPECT_NE(kind->validate, nullptr) << kind->name;
    EXPECT_NE(kind->visit_agents, nullptr) << kind->name;
    EXPECT_NE(kind->declared_bounds, nullptr) << kind->name;
    EXPECT_NE(kind->roles, nullptr) << kind->name;
    // A pattern plans its tasks at run time: it has no phases to draw.
    EXPECT_FALSE(kind->is_pattern && kind->has_phases) << kind->name;
    // ...and no DAG to lay out before it runs; a kind that declares its
    // tasks has one (ValidateFlow's layers).
    EXPECT_EQ(kind->as_taskflow == nullptr, kind->is_pattern) << kind->name;
  }
}

TEST(FlowKinds, Board_AsTaskflow_OneAgentPhasePerTask) {
  v1::FlowSpec spec;
  v1::BoardSpec& board = *spec.mutable_board();
  board.set_concurrency(3);
  v1::BoardTask& first = *board.add_tasks();
  first.set_id("fetch");
  first.set_agent("coder");
  first.set_task("fetch it");
  first.set_retries(2);
  v1::BoardTask& second = *board.add_tasks();
  second.set_id("read");
  second.set_task("read it");
  second.add_deps("fetch");
  second.set_is_optional(true);
  const v1::TaskflowSpec flow = FindFlowKind(spec)->as_taskflow(spec);
  EXPECT_EQ(flow.concurrency(), 3);
  ASSERT_EQ(flow.phases_size(), 2);
  EXPECT_EQ(flow.phases(0).id(), "fetch");
  EXPECT_EQ(flow.phases(0).type(), v1::PHASE_TYPE_AGENT);
  EXPECT_EQ(flow.phases(0).agent(), "coder");
  EXPECT_EQ(flow.phases(0).task(), "fetch it");
  EXPECT_EQ(flow.phases(0).retries(), 2);
  EXPECT_THAT(flow.phases(1).depends_on(), ::testing::ElementsAre("fetch"));
  EXPECT_TRUE(flow.phases(1).is_optional());
  EXPECT_FALSE(flow.phases(1).has_retries());
}

TEST(FlowKinds, Board_StripForActive_DropsTheTasksOnly) {
  v1::FlowSpec board;
  board.set_name("b");
  board.mutable_board()->set_concurrency(2);
  board.mutable_board()->add_tasks()->set_id("t");
  const FlowKindInfo* kind = FindFlowKind(board);
  ASSERT_NE(kind->strip_for_active, nullptr);
  kind->strip_for_active(&board);
  EXPECT_TRUE(board.has_board());
  EXPECT_EQ(board.board().tasks_size(), 0);
  EXPECT_EQ(board.board().concurrency(), 2);
  EXPECT_EQ(board.name(), "b");
}

TEST(FlowKinds, FindByNameAndRunKind_RoundTrip) {
  for (const FlowKindInfo* kind : AllFlowKinds()) {
    EXPECT_EQ(FindFlowKindByName(kind->name), kind);
    EXPECT_EQ(FindFlowKind(kind->run_kind), kind);
  }
  EXPECT_EQ(FindFlowKindByName("debate"), nullptr);
  EXPECT_EQ(FindFlowKind(v1::FLOW_KIND_UNSPECIFIED), nullptr);
}

TEST(FlowKinds, FindBySpec_FollowsTheOneof) {
  v1::FlowSpec spec;
  EXPECT_EQ(FindFlowKind(spec), nullptr);
  EXPECT_EQ(RunKindOf(spec), v1::FLOW_KIND_UNSPECIFIED);
  EXPECT_EQ(FlowKindName(spec), "");
  spec.mutable_board();
  ASSERT_NE(FindFlowKind(spec), nullptr);
  EXPECT_EQ(FindFlowKind(spec)->name, "board");
  EXPECT_EQ(RunKindOf(spec), v1::FLOW_KIND_BOARD);
  spec.mutable_plan_and_execute();
  EXPECT_EQ(FlowKindName(spec), "plan_and_execute");
  EXPECT_EQ(RunKindOf(spec), v1::FLOW_KIND_PLAN_AND_EXECUTE);
}

TEST(FlowKinds, TableOrder_IsTheOrderMessagesListThem) {
  std::vector<std::string> names;
  for (const FlowKindInfo* kind : AllFlowKinds()) names.emplace_back(kind->name);
  EXPECT_THAT(names, ::testing::ElementsAre("taskflow", "plan_and_execute", "supervisor", "board"));
}

}  // namespace
}  // namespace taskboard::flow
