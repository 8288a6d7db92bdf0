#include "common/log/log_flags.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::log {
namespace {

using ::testing::HasSubstr;

// Parses `args` (after the program name) with only the log flags declared;
// the parse error's message, empty on success.
std::string Parse(std::vector<std::string> args, LogFlags* flags) {
  CLI::App app{"test"};
  AddLogFlags(app, flags);
  std::vector<const char*> argv = {"test"};
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

class LogFlagsTest : public ::testing::Test {
 protected:
  LogFlagsTest() : saved_(CurrentConfig()) {}
  ~LogFlagsTest() override {
    unsetenv("TASKBOARD_LOG_LEVEL");
    Configure(saved_);
  }

 private:
  const LogConfig saved_;
};

TEST_F(LogFlagsTest, NoFlags_InfoAndJson) {
  LogFlags flags;
  EXPECT_EQ(Parse({}, &flags), "");
  ASSERT_TRUE(ConfigureFromFlags(flags, "scheduler").ok());
  LogConfig config = CurrentConfig();
  EXPECT_EQ(config.min_level, Level::kInfo);
  EXPECT_EQ(config.format, Format::kJson);
  EXPECT_EQ(config.component, "scheduler");
}

TEST_F(LogFlagsTest, LevelAndFormat_Applied) {
  LogFlags flags;
  EXPECT_EQ(Parse({"--log-level", "debug", "--log-format", "text"}, &flags), "");
  ASSERT_TRUE(ConfigureFromFlags(flags, "worker").ok());
  EXPECT_EQ(CurrentConfig().min_level, Level::kDebug);
  EXPECT_EQ(CurrentConfig().format, Format::kText);
}

TEST_F(LogFlagsTest, UnknownLevel_ParseErrorNamesFlagValueAndChoices) {
  LogFlags flags;
  std::string error = Parse({"--log-level", "bogus"}, &flags);
  EXPECT_THAT(error, HasSubstr("--log-level"));
  EXPECT_THAT(error, HasSubstr("'bogus'"));
  EXPECT_THAT(error, HasSubstr("debug, info, warn, error, fatal"));
}

TEST_F(LogFlagsTest, UnknownFormat_ParseError) {
  LogFlags flags;
  std::string error = Parse({"--log-format", "xml"}, &flags);
  EXPECT_THAT(error, HasSubstr("--log-format"));
  EXPECT_THAT(error, HasSubstr("json or text"));
}

TEST_F(LogFlagsTest, Environment_IsTheDefaultAndTheFlagWins) {
  setenv("TASKBOARD_LOG_LEVEL", "warn", 1);
  LogFlags from_env;
  EXPECT_EQ(Parse({}, &from_env), "");
  EXPECT_EQ(from_env.level, "warn");
  LogFlags from_flag;
  EXPECT_EQ(Parse({"--log-level", "error"}, &from_flag), "");
  EXPECT_EQ(from_flag.level, "error");
}

TEST_F(LogFlagsTest, UnknownLevelInEnvironment_ParseError) {
  setenv("TASKBOARD_LOG_LEVEL", "loud", 1);
  LogFlags flags;
  std::string error = Parse({}, &flags);
  EXPECT_THAT(error, HasSubstr("'loud'"));
  EXPECT_THAT(error, HasSubstr("TASKBOARD_LOG_LEVEL"));
}

TEST_F(LogFlagsTest, ConfigureFromFlags_BadValue_InvalidArgumentAndConfigKept) {
  Configure({Level::kWarn, Format::kJson, "before"});
  LogFlags flags;
  flags.level = "loud";
  absl::Status status = ConfigureFromFlags(flags, "after");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CurrentConfig().component, "before");
}

}  // namespace
}  // namespace taskboard::log
