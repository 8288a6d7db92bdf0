#include "common/log/log.h"

#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::log {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// A field type that counts how often it is converted to JSON.
struct Counted {
  int* conversions;
};
void to_json(Json& json, const Counted& counted) {
  ++*counted.conversions;
  json = "counted";
}

// Captures the lines written while it lives and restores the process-wide
// logger afterwards.
class LogTest : public ::testing::Test {
 protected:
  LogTest() : saved_(CurrentConfig()) {
    SetSinkForTesting([this](absl::string_view line) {
      absl::MutexLock lock(&mu_);
      lines_.emplace_back(line);
    });
  }
  ~LogTest() override {
    SetSinkForTesting(nullptr);
    Configure(saved_);
  }

  std::vector<Json> Lines() {
    absl::MutexLock lock(&mu_);
    std::vector<Json> parsed;
    for (const std::string& line : lines_) {
      absl::StatusOr<Json> json = ParseJson(line);
      EXPECT_TRUE(json.ok()) << line;
      parsed.push_back(json.ok() ? *json : Json());
    }
    return parsed;
  }

 private:
  const LogConfig saved_;
  absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

TEST_F(LogTest, Info_WritesOneLineWithFieldsAndComponent) {
  Configure({Level::kInfo, Format::kJson, "worker"});
  Info("worker connected")
      .With("worker_id", std::string("w-1"))
      .With("slots", 4)
      .With("scheduler", absl::string_view("127.0.0.1:1"))
      .With("error", absl::NotFoundError("gone"));
  std::vector<Json> lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["level"], "info");
  EXPECT_EQ(lines[0]["msg"], "worker connected");
  EXPECT_EQ(lines[0]["component"], "worker");
  EXPECT_EQ(lines[0]["worker_id"], "w-1");
  EXPECT_EQ(lines[0]["slots"], 4);
  EXPECT_EQ(lines[0]["scheduler"], "127.0.0.1:1");
  EXPECT_EQ(lines[0]["error"], "NOT_FOUND: gone");
  EXPECT_TRUE(lines[0]["ts"].is_string());
}

TEST_F(LogTest, BelowMinimumLevel_NothingWritten) {
  Configure({Level::kWarn, Format::kJson, ""});
  Debug("per task").With("task_id", "t");
  Info("per run");
  Warn("kept");
  Error("kept too");
  std::vector<std::string> levels;
  for (const Json& line : Lines()) levels.push_back(line["level"]);
  EXPECT_THAT(levels, ElementsAre("warn", "error"));
}

TEST_F(LogTest, Enabled_FollowsTheMinimumLevel) {
  Configure({Level::kDebug, Format::kJson, ""});
  EXPECT_TRUE(Enabled(Level::kDebug));
  Configure({Level::kError, Format::kJson, ""});
  EXPECT_FALSE(Enabled(Level::kWarn));
  EXPECT_TRUE(Enabled(Level::kError));
  EXPECT_TRUE(Enabled(Level::kFatal));
}

TEST_F(LogTest, DisabledLine_DoesNotConvertItsFields) {
  Configure({Level::kInfo, Format::kJson, ""});
  int conversions = 0;
  Debug("skipped").With("counted", Counted{&conversions});
  EXPECT_EQ(conversions, 0);
  Info("kept").With("counted", Counted{&conversions});
  EXPECT_EQ(conversions, 1);
  EXPECT_THAT(Lines(), SizeIs(1));
}

TEST_F(LogTest, Fields_MergesAnObjectAndKeepsLaterWith) {
  Configure({Level::kInfo, Format::kJson, ""});
  Info("draining").Fields({{"worker_id", "w-1"}, {"scheduler", "s"}}).With("grace_ms", 300);
  std::vector<Json> lines = Lines();
  ASSERT_THAT(lines, SizeIs(1));
  EXPECT_EQ(lines[0]["worker_id"], "w-1");
  EXPECT_EQ(lines[0]["grace_ms"], 300);
}

TEST_F(LogTest, ManyThreads_EveryLineWholeAndValid) {
  Configure({Level::kDebug, Format::kJson, "worker"});
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        Debug("task finished").With("thread", t).With("i", i).With("pad", std::string(100, 'x'));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::vector<Json> lines = Lines();
  EXPECT_THAT(lines, SizeIs(8 * 200));
  for (const Json& line : lines) EXPECT_EQ(line["msg"], "task finished");
}

}  // namespace
}  // namespace taskboard::log
