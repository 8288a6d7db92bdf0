// ListWorkers as operators see it: last_heartbeat is when the scheduler last
// heard from the worker (its Hello, then any message on its stream).

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine {
namespace {

using ::taskboard::engine::testing::EngineHarness;
using ::taskboard::engine::testing::TestWorker;
using ::testing::SizeIs;

std::vector<v1::WorkerInfo> List(EngineHarness& h) {
  std::optional<std::vector<v1::WorkerInfo>> workers;
  h.engine().ListWorkers([&](std::vector<v1::WorkerInfo> listed) { workers = std::move(listed); });
  h.RunOnce();
  EXPECT_TRUE(workers.has_value()) << "ListWorkers did not reply within one batch";
  return workers.value_or(std::vector<v1::WorkerInfo>());
}

TEST(ListWorkers, LastHeartbeat_SetAtHelloAndAdvancedByEachMessage) {
  EngineHarness h;
  const int64_t connected_ms = h.clock().NowMs();
  TestWorker w = h.Connect("w1", {"coder"});
  std::vector<v1::WorkerInfo> workers = List(h);
  ASSERT_THAT(workers, SizeIs(1));
  EXPECT_EQ(ToUnixMs(workers[0].last_heartbeat()), connected_ms);

  h.clock().Advance(5'000);
  h.Heartbeat(w, {});
  workers = List(h);
  ASSERT_THAT(workers, SizeIs(1));
  EXPECT_EQ(ToUnixMs(workers[0].last_heartbeat()), connected_ms + 5'000);
  EXPECT_EQ(ToUnixMs(workers[0].connected_at()), connected_ms);

  // Silence does not move it; any other message does (a batch included).
  h.Advance(3'000);
  EXPECT_EQ(ToUnixMs(List(h)[0].last_heartbeat()), connected_ms + 5'000);
  v1::ConnectRequest batch;
  batch.mutable_batch()->add_messages()->mutable_credits()->set_slots(1);
  h.Send(w, batch);
  EXPECT_EQ(ToUnixMs(List(h)[0].last_heartbeat()), connected_ms + 8'000);
}

}  // namespace
}  // namespace taskboard::engine
