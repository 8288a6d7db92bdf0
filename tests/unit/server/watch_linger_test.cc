#include "scheduler/server/watch_linger.h"

#include "gtest/gtest.h"

namespace taskboard::server {
namespace {

// A live stream of a busy run: a batching watcher, a few events queued after
// a small write.
WatchLinger::Stream Trickle() {
  WatchLinger::Stream stream;
  stream.events_per_message = 1000;
  stream.queued = 3;
  stream.last_write = 5;
  return stream;
}

TEST(WatchLinger, SmallWriteAfterSmallWrite_IsHeld) {
  EXPECT_TRUE(WatchLinger::Hold(Trickle()));
  EXPECT_FALSE(WatchLinger::CutShort(Trickle()));
}

TEST(WatchLinger, OneEventPerMessage_IsNeverHeld) {
  WatchLinger::Stream stream = Trickle();
  stream.events_per_message = 1;
  EXPECT_FALSE(WatchLinger::Hold(stream));
}

TEST(WatchLinger, Replay_IsNeverHeld) {
  WatchLinger::Stream stream = Trickle();
  stream.replaying = true;
  EXPECT_FALSE(WatchLinger::Hold(stream));
}

TEST(WatchLinger, RunOver_IsNeverHeldAndCutsAHoldShort) {
  WatchLinger::Stream stream = Trickle();
  stream.run_over = true;
  EXPECT_FALSE(WatchLinger::Hold(stream));
  EXPECT_TRUE(WatchLinger::CutShort(stream));
}

TEST(WatchLinger, AWriteIsHeldOnce) {
  WatchLinger::Stream stream = Trickle();
  stream.held = true;
  EXPECT_FALSE(WatchLinger::Hold(stream));
}

TEST(WatchLinger, AfterALargeWrite_TheNextIsNotHeld) {
  WatchLinger::Stream stream = Trickle();
  stream.last_write = WatchLinger::kSmallWrite;
  EXPECT_FALSE(WatchLinger::Hold(stream));
}

TEST(WatchLinger, ManyQueued_IsNotHeld) {
  WatchLinger::Stream stream = Trickle();
  stream.queued = WatchLinger::kSmallWrite;
  EXPECT_FALSE(WatchLinger::Hold(stream));
}

TEST(WatchLinger, AWholeMessageQueued_CutsAHoldShort) {
  WatchLinger::Stream stream = Trickle();
  stream.events_per_message = 10;
  stream.queued = 10;
  EXPECT_TRUE(WatchLinger::CutShort(stream));
  EXPECT_FALSE(WatchLinger::Hold(stream));
  stream.queued = 9;
  EXPECT_FALSE(WatchLinger::CutShort(stream));
}

TEST(WatchLinger, NothingQueued_IsNotHeld) {
  WatchLinger::Stream stream = Trickle();
  stream.queued = 0;
  EXPECT_FALSE(WatchLinger::Hold(stream));
}

}  // namespace
}  // namespace taskboard::server
