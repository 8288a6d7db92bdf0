#include "common/mcp/stdio_transport.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::mcp {
namespace {

using ::testing::HasSubstr;

class NoTools : public ToolTable {
 public:
  std::vector<ToolDescription> List() const override { return {}; }
  bool Has(const std::string&) const override { return false; }
  ToolResult Call(const std::string&, const Json&, const Json&) override { return {}; }
};

std::vector<std::string> Serve(const std::string& input, size_t max_line_bytes) {
  NoTools tools;
  ServerSession session(ServerOptions{}, tools);
  std::istringstream in(input);
  std::ostringstream out;
  ServeLines(session, in, out, max_line_bytes);
  std::vector<std::string> lines = absl::StrSplit(out.str(), '\n', absl::SkipEmpty());
  return lines;
}

TEST(ServeLines, AnswersEachRequestOnItsOwnLine) {
  std::vector<std::string> lines = Serve(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
      1 << 20);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("\"id\":1"));
  EXPECT_THAT(lines[1], HasSubstr("\"id\":2"));
}

TEST(ServeLines, LineOverTheLimit_IsDroppedAndTheNextServed) {
  const std::string huge =
      absl::StrCat("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"",
                   std::string(300000, 'x'), "\"}\n");
  std::vector<std::string> lines =
      Serve(huge + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n", 1000);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("-32700"));
  EXPECT_THAT(lines[0], HasSubstr("1000 bytes"));
  EXPECT_THAT(lines[1], HasSubstr("\"id\":2"));
}

TEST(ServeLines, GarbageLine_IsAParseErrorAndServingGoesOn) {
  std::vector<std::string> lines =
      Serve("not json at all\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n", 1 << 20);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0], HasSubstr("-32700"));
  EXPECT_THAT(lines[1], HasSubstr("\"result\":{}"));
}

}  // namespace
}  // namespace taskboard::mcp
