#include "common/log/format.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::log {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

Record RecordAt(Level level, std::string msg, Json fields = Json::object()) {
  Record record;
  // 2026-11-21T21:24:28.123Z
  record.time = absl::FromUnixMillis(1795296268123);
  record.level = level;
  record.msg = std::move(msg);
  record.component = "scheduler";
  record.fields = std::move(fields);
  return record;
}

TEST(FormatTimestamp, Utc_Rfc3339WithMilliseconds) {
  EXPECT_EQ(FormatTimestamp(absl::FromUnixMillis(1795296268123)), "2026-11-21T21:24:28.123Z");
  EXPECT_EQ(FormatTimestamp(absl::FromUnixMillis(0)), "1970-01-01T00:00:00.000Z");
}

TEST(FormatLine, Json_FixedKeysFirstThenFieldsInOrder) {
  std::string line = FormatLine(
      RecordAt(Level::kInfo, "run finished", {{"run_id", "r-1"}, {"attempt", 2}}), Format::kJson);
  EXPECT_EQ(line, R"({"ts":"2026-11-21T21:24:28.123Z","level":"info","msg":"run finished",)"
                  R"("component":"scheduler","run_id":"r-1","attempt":2})");
}

TEST(FormatLine, Json_EscapesQuotesNewlinesAndControlCharacters) {
  std::string msg = "say \"hi\"\nand\tleave \\ \x01";
  std::string line =
      FormatLine(RecordAt(Level::kError, msg, {{"error", "line1\nline2"}}), Format::kJson);
  EXPECT_THAT(line, Not(HasSubstr("\n")));
  absl::StatusOr<Json> parsed = ParseJson(line);
  ASSERT_TRUE(parsed.ok()) << line;
  EXPECT_EQ((*parsed)["msg"], msg);
  EXPECT_EQ((*parsed)["error"], "line1\nline2");
}

TEST(FormatLine, Json_InvalidUtf8_ReplacedNotThrown) {
  std::string line = FormatLine(RecordAt(Level::kWarn, "bad \xff byte"), Format::kJson);
  EXPECT_TRUE(ParseJson(line).ok()) << line;
}

TEST(FormatLine, Json_FieldNamedLikeFixedKey_Dropped) {
  std::string line = FormatLine(
      RecordAt(Level::kInfo, "real", {{"msg", "fake"}, {"level", "fatal"}, {"ok", true}}),
      Format::kJson);
  absl::StatusOr<Json> parsed = ParseJson(line);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ((*parsed)["msg"], "real");
  EXPECT_EQ((*parsed)["level"], "info");
  EXPECT_EQ((*parsed)["ok"], true);
}

TEST(FormatLine, Json_NoComponent_KeyOmitted) {
  Record record = RecordAt(Level::kInfo, "x");
  record.component.clear();
  EXPECT_THAT(FormatLine(record, Format::kJson), Not(HasSubstr("component")));
}

TEST(FormatLine, Text_ReadableWithBareAndQuotedValues) {
  std::string line = FormatLine(
      RecordAt(Level::kInfo, "worker connected",
               {{"worker_id", "w-1"}, {"slots", 4}, {"reason", "asked nicely"}, {"empty", ""}}),
      Format::kText);
  EXPECT_EQ(line,
            "2026-11-21T21:24:28.123Z info  scheduler: worker connected worker_id=w-1 slots=4 "
            "reason=\"asked nicely\" empty=\"\"");
}

TEST(FormatLine, Text_NewlinesNeverSplitTheLine) {
  std::string line =
      FormatLine(RecordAt(Level::kError, "two\nlines", {{"error", "a\nb"}}), Format::kText);
  EXPECT_THAT(line, Not(HasSubstr("\n")));
  EXPECT_THAT(line, HasSubstr("error=\"a\\nb\""));
}

TEST(ParseFormat, JsonAndText_AcceptedOthersFail) {
  EXPECT_EQ(*ParseFormat("json"), Format::kJson);
  EXPECT_EQ(*ParseFormat("TEXT"), Format::kText);
  absl::StatusOr<Format> bad = ParseFormat("xml");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("'xml'"));
  EXPECT_THAT(bad.status().message(), HasSubstr("json or text"));
}

}  // namespace
}  // namespace taskboard::log
