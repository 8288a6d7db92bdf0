#include "tools/cli/live_view.h"

#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/run_fixtures.h"
#include "tools/cli/run_render.h"

namespace taskboard::cli {
namespace {

using ::testing::AllOf;
using testing::At;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::kAuditFlow;
using testing::kAuditMidRun;
using testing::kAuditStarting;
using testing::MakeRun;
using ::testing::Not;
using ::testing::StartsWith;

TerminalInfo Tty() { return {.tty = true, .color = false, .width = 200, .height = 0}; }

// Returns what was written since the previous call.
std::string Take(std::ostringstream& out) {
  std::string text = out.str();
  out.str("");
  return text;
}

TEST(LiveView, Log_PrintsHeaderThenTransitionsThenFinalFrame) {
  std::ostringstream out;
  LiveView view(out, TerminalInfo{});
  const v1::Run starting = MakeRun(kAuditStarting, kAuditFlow);
  const v1::Run later = MakeRun(kAuditMidRun, kAuditFlow);

  view.Update(starting, At(absl::Seconds(5)));
  EXPECT_EQ(Take(out),
            "◐ taskflow audit  0/6 phases · running · 5.0s · run r-7\n"
            "[+1.0s] ◐ discover  running\n"
            "[+1.0s] ◐ precheck  running\n");
  view.Tick(At(absl::Seconds(6)));
  EXPECT_THAT(Take(out), IsEmpty()) << "a log never animates";
  view.Update(later, At(absl::Seconds(65)));
  const std::string lines = Take(out);
  EXPECT_THAT(lines, StartsWith("[+13.3s] ✓ discover  completed"));
  EXPECT_THAT(lines, Not(HasSubstr("taskflow audit"))) << "the header is printed once";
  view.Finish(At(absl::Seconds(66)));
  EXPECT_EQ(Take(out), "\n" + RenderRun(later, At(absl::Seconds(66))));
}

v1::Observation ToolCall(const std::string& task_id, bool cached = false) {
  v1::Observation call;
  call.set_task_id(task_id);
  call.set_tool_name("read_file");
  call.set_cached(cached);
  return call;
}

TEST(LiveView, Log_FinalFrameCountsToolCalls) {
  std::ostringstream out;
  LiveView view(out, TerminalInfo{});
  const v1::Run starting = MakeRun(kAuditStarting, kAuditFlow);
  view.Update(starting, At(absl::Seconds(5)));
  Take(out);
  view.AddToolCall(ToolCall("discover"));
  view.AddToolCall(ToolCall("discover", /*cached=*/true));
  EXPECT_THAT(Take(out), IsEmpty()) << "counted, shown with the next snapshot";
  const v1::Run later = MakeRun(kAuditMidRun, kAuditFlow);
  view.Update(later, At(absl::Seconds(65)));
  EXPECT_THAT(Take(out), StartsWith("[+13.3s] ✓ discover  completed  12.3s  ↑1.2k ↓310 $0.0021\n"))
      << "lines carry no counts";
  view.Finish(At(absl::Seconds(66)));
  ToolTally tally;
  tally.Add(ToolCall("discover"));
  tally.Add(ToolCall("discover", /*cached=*/true));
  const std::string last = Take(out);
  EXPECT_EQ(last, "\n" + RenderRun(later, At(absl::Seconds(66)), {.tools = &tally}));
  EXPECT_THAT(last, HasSubstr(" · 1m06s · tools 2 · cached 1 · run r-7\n"));
}

TEST(LiveView, Terminal_ToolCallRedrawsASettledFrame) {
  std::ostringstream out;
  LiveView view(out, Tty());
  v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  run.set_status(v1::RUN_STATUS_FAILED);
  view.Update(run, At(absl::Seconds(65)));
  Take(out);
  view.Tick(At(absl::Seconds(66)));
  EXPECT_THAT(Take(out), IsEmpty()) << "a settled run without news is not redrawn";
  view.AddToolCall(ToolCall("discover", /*cached=*/true));
  view.Tick(At(absl::Seconds(67)));
  const std::string frame = Take(out);
  EXPECT_THAT(frame, AllOf(HasSubstr(" · tools 1 · cached 1 · run r-7\n"),
                           HasSubstr("┌ ✓  discover  agent   scout     12.3s  ↑1.2k ↓310 $0.0021  "
                                     "tools 1 (1 cached)\n")));
}

TEST(LiveView, Terminal_RedrawsInPlaceAtMostOncePerInterval) {
  std::ostringstream out;
  LiveView view(out, Tty(), absl::Milliseconds(100));
  const v1::Run starting = MakeRun(kAuditStarting, kAuditFlow);
  const v1::Run later = MakeRun(kAuditMidRun, kAuditFlow);

  view.Update(starting, At(absl::Seconds(5)));
  const std::string first = Take(out);
  // Nothing to move over yet: each line erased and written, the rest cleared.
  EXPECT_THAT(first, StartsWith("\x1b[2K⠋ taskflow audit"));
  EXPECT_TRUE(absl::EndsWith(first, "\n\x1b[J")) << first;
  const int height = static_cast<int>(std::count(first.begin(), first.end(), '\n'));
  EXPECT_EQ(height, 7);

  view.Update(later, At(absl::Seconds(5) + absl::Milliseconds(40)));
  EXPECT_THAT(Take(out), IsEmpty()) << "throttled: 40ms after the last frame";
  view.Tick(At(absl::Seconds(5) + absl::Milliseconds(120)));
  const std::string second = Take(out);
  EXPECT_THAT(second, StartsWith("\x1b[7F\x1b[2K⠙ taskflow audit  2/6 phases"));
  EXPECT_THAT(second, HasSubstr("\x1b[2K  ┌ ⠙  files"));
}

TEST(LiveView, Terminal_FinishDrawsStaticIcons) {
  std::ostringstream out;
  LiveView view(out, Tty());
  const v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  view.Update(run, At(absl::Seconds(65)));
  Take(out);
  view.Finish(At(absl::Seconds(65) + absl::Milliseconds(10)));
  const std::string last = Take(out);
  EXPECT_THAT(last, StartsWith("\x1b[7F\x1b[2K◐ taskflow audit"));
  EXPECT_THAT(last, HasSubstr("┌ ◐  files"));
}

TEST(LiveView, Terminal_FrameTallerThanScreen_KeepsWhatFits) {
  std::ostringstream out;
  TerminalInfo small = Tty();
  small.height = 5;
  LiveView view(out, small);
  const v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  view.Update(run, At(absl::Seconds(65)));
  const std::string frame = Take(out);
  EXPECT_EQ(std::count(frame.begin(), frame.end(), '\n'), 4);
  EXPECT_THAT(frame, HasSubstr("  … 4 more rows\n"));
}

TEST(LiveView, Terminal_NoteGoesAboveTheFrame) {
  std::ostringstream out;
  LiveView view(out, Tty());
  const v1::Run run = MakeRun(kAuditMidRun, kAuditFlow);
  view.Update(run, At(absl::Seconds(65)));
  Take(out);
  view.Note("warning: slow worker", At(absl::Seconds(66)));
  const std::string text = Take(out);
  EXPECT_THAT(text, StartsWith("\x1b[7F\x1b[Jwarning: slow worker\n\x1b[2K"));
}

}  // namespace
}  // namespace taskboard::cli
