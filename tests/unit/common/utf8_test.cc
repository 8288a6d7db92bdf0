#include "common/utf8.h"

#include <string>

#include "gtest/gtest.h"

namespace taskboard {
namespace {

TEST(FindInvalidUtf8, ValidText_ReturnsNothing) {
  EXPECT_EQ(FindInvalidUtf8(""), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), std::nullopt);
}

TEST(FindInvalidUtf8, InvalidSequences_ReturnTheirOffset) {
  EXPECT_EQ(FindInvalidUtf8("ab\xff"), 2u);            // not a lead byte
  EXPECT_EQ(FindInvalidUtf8("a\xc3"), 1u);             // truncated
  EXPECT_EQ(FindInvalidUtf8("a\xc3(b"), 1u);           // bad continuation
  EXPECT_EQ(FindInvalidUtf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(FindInvalidUtf8("x\xed\xa0\x80"), 1u);     // surrogate U+D800
  EXPECT_EQ(FindInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // above U+10FFFF
}

TEST(ToValidUtf8, ReplacesEachInvalidByteAndKeepsValidText) {
  EXPECT_EQ(ToValidUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(ToValidUtf8("a\xde"
                        "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(ToValidUtf8("\xff\xfe"), "\xef\xbf\xbd\xef\xbf\xbd");
}

}  // namespace
}  // namespace taskboard
