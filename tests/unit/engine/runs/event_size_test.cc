// FitEventToLimit (event_size.h): oversized run events keep their state
// changes and lose text, with a marker, at character boundaries.

#include "scheduler/engine/runs/event_size.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::engine {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(FitEventToLimit, SmallEvent_IsUnchanged) {
  v1::RunEvent event;
  event.mutable_output_delta()->set_text("hello");
  v1::RunEvent before = event;
  EXPECT_FALSE(FitEventToLimit(event, 1'024));
  EXPECT_EQ(event.SerializeAsString(), before.SerializeAsString());
}

TEST(FitEventToLimit, LargeTaskOutput_IsCutWithAMarkerAndTheStateKept) {
  v1::RunEvent event;
  v1::Task& task = *event.mutable_task_change()->mutable_task();
  task.set_task_id("a");
  task.set_state(v1::TASK_STATE_COMPLETED);
  task.set_output(std::string(100'000, 'o'));
  task.set_error("short");
  EXPECT_TRUE(FitEventToLimit(event, 1'024));
  EXPECT_LE(event.ByteSizeLong(), 1'024u);
  EXPECT_EQ(event.task_change().task().state(), v1::TASK_STATE_COMPLETED);
  EXPECT_EQ(event.task_change().task().error(), "short");
  EXPECT_THAT(event.task_change().task().output(), StartsWith("ooo"));
  EXPECT_THAT(event.task_change().task().output(),
              EndsWith(" of 100000 bytes shown; scheduler flag --max-event-bytes]"));
}

TEST(FitEventToLimit, TwoLargeTexts_BothCutUntilItFits) {
  v1::RunEvent event;
  event.mutable_run_finished()->set_output(std::string(50'000, 'o'));
  event.mutable_run_finished()->set_error(std::string(40'000, 'e'));
  EXPECT_TRUE(FitEventToLimit(event, 1'024));
  EXPECT_LE(event.ByteSizeLong(), 1'024u);
  EXPECT_THAT(event.run_finished().error(), HasSubstr("of 40000 bytes shown"));
}

TEST(FitEventToLimit, MultiByteText_IsCutAtACharacterBoundary) {
  v1::RunEvent event;
  std::string text;
  for (int i = 0; i < 10'000; ++i) text += "é";  // 2 bytes each
  event.mutable_output_delta()->set_text(text);
  EXPECT_TRUE(FitEventToLimit(event, 1'025));
  const std::string& cut = event.output_delta().text();
  size_t shown = cut.find("…[cut:");
  ASSERT_NE(shown, std::string::npos);
  EXPECT_EQ(shown % 2, 0u);
  // Valid UTF-8, or serialization would have failed.
  std::string wire;
  EXPECT_TRUE(event.SerializeToString(&wire));
}

}  // namespace
}  // namespace taskboard::engine
