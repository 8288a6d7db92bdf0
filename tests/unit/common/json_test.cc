#include "common/json.h"

#include <dlfcn.h>

#include <atomic>
#include <string>
#include <typeinfo>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

// Counts the exceptions thrown in this test binary, so that a test can tell a
// parse that fails by throwing (and catching) from one that does not. It
// forwards to the C++ runtime's own __cxa_throw.
std::atomic<int> thrown{0};

extern "C" void __cxa_throw(void* exception, std::type_info* type, void (*destroy)(void*)) {
  thrown.fetch_add(1);
  using Throw = void (*)(void*, std::type_info*, void (*)(void*));
  static const Throw real = reinterpret_cast<Throw>(dlsym(RTLD_NEXT, "__cxa_throw"));
  real(exception, type, destroy);
  __builtin_unreachable();
}

namespace taskboard {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ParseJson, KeepsObjectKeyOrder) {
  absl::StatusOr<Json> json = ParseJson(R"({"b": 1, "a": 2})");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(DumpJson(*json), R"({"b":1,"a":2})");
}

TEST(ParseJson, SyntaxError_IsInvalidArgument) {
  EXPECT_THAT(ParseJson("{"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
}

TEST(ParseJson, NumberOutOfRange_IsInvalidArgumentNotAThrow) {
  EXPECT_THAT(ParseJson("[1e999]"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid JSON")));
}

TEST(TryParseJson, AgreesWithParseJson) {
  const std::string deep = std::string(10'000, '[') + std::string(10'000, ']');
  for (const std::string& text :
       std::vector<std::string>{R"({"b": 1, "a": [true, null, "x"]})", "42", R"("text")", " [] ",
                                "{", "[1e999]", "x 5", "", "  \n", "{} trailing", "[1,]", "tru",
                                "nul", "-", "\"open", "\xEF\xBB\xBF[1]", "\xEF\xBB\xBFx", deep}) {
    absl::StatusOr<Json> parsed = ParseJson(text);
    std::optional<Json> tried = TryParseJson(text);
    ASSERT_EQ(tried.has_value(), parsed.ok()) << text.substr(0, 40);
    if (tried.has_value()) EXPECT_EQ(DumpJson(*tried), DumpJson(*parsed)) << text;
  }
}

TEST(TryParseJson, TextThatIsNotJson_FailsWithoutThrowing) {
  // ParseJson reports the same failures by catching the parser's exception.
  const int before = thrown.load();
  ASSERT_FALSE(ParseJson("no JSON here").ok());
  ASSERT_GT(thrown.load(), before) << "the counter sees the parser's exceptions";
  const int counted = thrown.load();
  EXPECT_FALSE(TryParseJson("no JSON here").has_value());
  EXPECT_FALSE(TryParseJson("[1e999]").has_value());
  EXPECT_FALSE(TryParseJson("{\"a\": 1,}").has_value());
  EXPECT_EQ(thrown.load(), counted);
}

}  // namespace
}  // namespace taskboard
