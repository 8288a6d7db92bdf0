// A map phase's resolved items are stored once, under a key of their own,
// while its phase record is rewritten with every progress count (a map of
// 10,000 items rewrote all of them with every batch). They read back with the
// phase after a restart, and a phase stored before the split (items inline)
// still loads and moves its items to their key.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/store/keys.h"
#include "tests/unit/engine/engine_harness.h"
#include "tests/unit/engine/forwarding_store.h"

namespace taskboard::engine {
namespace {

using ::testing::ElementsAre;
using testing::EngineHarness;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using testing::TestWorker;

constexpr char kMap[] = R"({"name": "m", "phases": [
    {"id": "each", "type": "map", "agent": "coder", "over": ["a", "b", "c"],
     "task": "do {item}"}]})";

// Counts the writes of each key (meta column).
class CountingStore : public testing::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  absl::Status Write(const store::WriteBatch& batch) override {
    for (const store::WriteBatch::Op& op : batch.ops()) {
      if (op.column == store::Column::kMeta) ++puts[op.key];
    }
    return inner_.Write(batch);
  }
  std::map<std::string, int> puts;
};

store::PhaseRecord StoredPhase(store::Store& store, const std::string& run_id) {
  absl::StatusOr<std::optional<std::string>> stored =
      store.Get(store::Column::kMeta, store::keys::RunPhase(run_id, 0));
  EXPECT_TRUE(stored.ok() && stored->has_value());
  store::PhaseRecord phase;
  if (stored.ok() && stored->has_value()) EXPECT_TRUE(phase.ParseFromString(**stored));
  return phase;
}

std::vector<std::string> ItemsReadBack(store::Store& store, const std::string& run_id) {
  absl::StatusOr<store::RunRecord> record = ReadRunRecord(store, run_id);
  EXPECT_TRUE(record.ok()) << record.status();
  if (!record.ok()) return {};
  EXPECT_TRUE(ReadRunPhases(store, *record).ok());
  if (record->phases_size() != 1) return {};
  const auto& items = record->phases(0).items();
  return {items.begin(), items.end()};
}

TEST(PhaseItems, Map_ItemsWrittenOnce_PhaseRewrittenWithoutThem) {
  EngineHarness h;
  CountingStore counting(h.store());
  h.store_override = &counting;
  h.Restart();
  const std::string run = h.Submit(kMap);
  TestWorker worker = h.Connect("w1", {"coder"}, 3);
  std::vector<v1::Assignment> assigned = EngineHarness::Assignments(worker.channel->Take());
  ASSERT_THAT(assigned, SizeIs(3));
  h.Finish(worker, assigned[0], true, "done a");
  h.Finish(worker, assigned[1], true, "done b");

  const std::string items_key = store::keys::RunPhaseItems(run, 0);
  const std::string phase_key = store::keys::RunPhase(run, 0);
  EXPECT_EQ(counting.puts[items_key], 1);
  EXPECT_GE(counting.puts[phase_key], 3);  // fan-out and each progress count
  store::PhaseRecord phase = StoredPhase(h.store(), run);
  EXPECT_THAT(phase.items(), IsEmpty());
  EXPECT_EQ(phase.status().items_done(), 2);
  EXPECT_THAT(ItemsReadBack(h.store(), run), ElementsAre(R"("a")", R"("b")", R"("c")"));
}

TEST(PhaseItems, Restart_ItemsComeBackAndTheMapFinishes) {
  EngineHarness h;
  const std::string run = h.Submit(kMap);
  TestWorker worker = h.Connect("w1", {"coder"}, 3);
  std::vector<v1::Assignment> assigned = EngineHarness::Assignments(worker.channel->Take());
  ASSERT_THAT(assigned, SizeIs(3));

  h.Restart();
  TestWorker again = h.Connect("w1", {"coder"}, 3);
  assigned = EngineHarness::Assignments(again.channel->Take());
  ASSERT_THAT(assigned, SizeIs(3));
  for (const v1::Assignment& assignment : assigned) h.Finish(again, assignment, true, "ok");

  EXPECT_EQ(StoredPhase(h.store(), run).status().state(), v1::TASK_STATE_COMPLETED);
  EXPECT_THAT(ItemsReadBack(h.store(), run), ElementsAre(R"("a")", R"("b")", R"("c")"));
}

TEST(PhaseItems, PhaseStoredWithItemsInline_LoadsAndMovesThemToTheirKey) {
  EngineHarness h;
  const std::string run = h.Submit(kMap);
  TestWorker worker = h.Connect("w1", {"coder"}, 3);
  std::vector<v1::Assignment> assigned = EngineHarness::Assignments(worker.channel->Take());
  ASSERT_THAT(assigned, SizeIs(3));
  // The layout before the split: items inside the phase record, no key.
  store::PhaseRecord inline_phase = StoredPhase(h.store(), run);
  for (const char* item : {R"("a")", R"("b")", R"("c")"}) inline_phase.add_items(item);
  store::WriteBatch old_layout;
  old_layout.Put(store::Column::kMeta, store::keys::RunPhase(run, 0),
                 inline_phase.SerializeAsString());
  old_layout.Delete(store::Column::kMeta, store::keys::RunPhaseItems(run, 0));
  ASSERT_TRUE(h.store().Write(old_layout).ok());
  ASSERT_THAT(ItemsReadBack(h.store(), run), ElementsAre(R"("a")", R"("b")", R"("c")"));

  h.Restart();
  TestWorker again = h.Connect("w1", {"coder"}, 3);
  assigned = EngineHarness::Assignments(again.channel->Take());
  ASSERT_THAT(assigned, SizeIs(3));
  h.Finish(again, assigned[0], true, "ok");  // a progress count rewrites the phase

  EXPECT_THAT(StoredPhase(h.store(), run).items(), IsEmpty());
  EXPECT_THAT(ItemsReadBack(h.store(), run), ElementsAre(R"("a")", R"("b")", R"("c")"));
}

TEST(PhaseItems, BoardAndSingleTaskPhases_WriteNoItemsKey) {
  EngineHarness h;
  CountingStore counting(h.store());
  h.store_override = &counting;
  h.Restart();
  const std::string board = h.Submit(R"({"name": "b", "kind": "board", "board": {"tasks": [
      {"id": "a", "agent": "coder", "task": "x"}, {"id": "b", "agent": "coder", "task": "y"}]}})");
  TestWorker worker = h.Connect("w1", {"coder"}, 1);
  std::vector<v1::Assignment> assigned = EngineHarness::Assignments(worker.channel->Take());
  ASSERT_THAT(assigned, SizeIs(1));
  h.Finish(worker, assigned[0], true, "done");
  ASSERT_TRUE(h.Cancel(board).ok());  // rewrites every phase of the run

  int items_puts = 0;
  for (const auto& [key, puts] : counting.puts) {
    if (absl::StartsWith(key, store::keys::RunPhaseItemsOfRun(board))) items_puts += puts;
  }
  EXPECT_EQ(items_puts, 0);
  EXPECT_GE(counting.puts[store::keys::RunPhase(board, 1)], 1);
}

}  // namespace
}  // namespace taskboard::engine
