// W3C traceparent parsing and formatting, tracestate bounds: the valid
// forms, every invalid form the spec names, and later versions read as the
// spec says.

#include "common/otel/traceparent.h"

#include <string>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::otel {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kTrace[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char kParent[] = "00f067aa0ba902b7";

std::string Header(absl::string_view version, absl::string_view trace = kTrace,
                   absl::string_view parent = kParent, absl::string_view flags = "01") {
  return absl::StrCat(version, "-", trace, "-", parent, "-", flags);
}

TEST(ParseTraceparent, Version00Sampled_GivesRemoteSampledContext) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(Header("00"));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->trace_id.Hex(), kTrace);
  EXPECT_EQ(context->span_id.Hex(), kParent);
  EXPECT_TRUE(context->sampled());
  EXPECT_TRUE(context->remote);
  EXPECT_TRUE(context->IsValid());
  EXPECT_EQ(context->trace_state, "");
}

TEST(ParseTraceparent, Version00NotSampled_GivesUnsampledContext) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(Header("00", kTrace, kParent, "00"));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_FALSE(context->sampled());
}

TEST(ParseTraceparent, UnknownFlagBitsOfVersion00_AreKept) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(Header("00", kTrace, kParent, "ff"));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->trace_flags, 0xff);
  EXPECT_TRUE(context->sampled());
}

TEST(ParseTraceparent, SurroundingOptionalWhitespace_IsIgnored) {
  EXPECT_TRUE(ParseTraceparent(absl::StrCat(" \t", Header("00"), " ")).ok());
}

TEST(ParseTraceparent, Empty_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(""), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, TooShort_IsInvalid) {
  const std::string header = Header("00");
  EXPECT_THAT(ParseTraceparent(header.substr(0, header.size() - 1)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("54 characters")));
}

TEST(ParseTraceparent, Version00WithTrailingData_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("00") + "-extra"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("version 00")));
  EXPECT_THAT(ParseTraceparent(Header("00") + "x"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, VersionFf_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("ff")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ff")));
}

TEST(ParseTraceparent, VersionNotLowercaseHex_IsInvalid) {
  for (const char* version : {"0g", "0A", "FF", "-0", "0 "}) {
    EXPECT_THAT(ParseTraceparent(Header(version)), StatusIs(absl::StatusCode::kInvalidArgument))
        << version;
  }
}

TEST(ParseTraceparent, UppercaseHexInIds_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("00", "4BF92F3577B34DA6A3CE929D0E0E4736")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lowercase hex")));
  EXPECT_THAT(ParseTraceparent(Header("00", kTrace, "00F067AA0BA902B7")),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseTraceparent(Header("00", kTrace, kParent, "0A")),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, NonHexCharacters_AreInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("00", "4bf92f3577b34da6a3ce929d0e0e473z")),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseTraceparent(Header("00", kTrace, "00f067aa0ba902b.")),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseTraceparent(Header("00", kTrace, kParent, "0x")),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseTraceparent(Header("00", "4bf92f3577b34da6a3ce929d0e0e473\xc3")),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, AllZeroTraceId_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("00", std::string(32, '0'))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace id is all zeroes")));
}

TEST(ParseTraceparent, AllZeroParentId_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("00", kTrace, std::string(16, '0'))),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("parent id is all zeroes")));
}

TEST(ParseTraceparent, WrongSeparators_AreInvalid) {
  std::string header = Header("00");
  for (size_t dash : {2, 35, 52}) {
    std::string broken = header;
    broken[dash] = '_';
    EXPECT_THAT(ParseTraceparent(broken), StatusIs(absl::StatusCode::kInvalidArgument)) << broken;
  }
}

TEST(ParseTraceparent, FieldsOfWrongLength_AreInvalid) {
  // Same total length, the dashes shifted.
  EXPECT_THAT(ParseTraceparent(absl::StrCat("00-", std::string(31, 'a'), "-a", kParent, "-01")),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseTraceparent(absl::StrCat("000-", kTrace, "-", kParent, "-1")),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, InnerWhitespace_IsInvalid) {
  EXPECT_THAT(
      ParseTraceparent(absl::StrCat("00- ", std::string(kTrace).substr(1), "-", kParent, "-01")),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, LaterVersionOfVersion00Length_IsRead) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(Header("01"));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->trace_id.Hex(), kTrace);
  EXPECT_TRUE(context->sampled());
}

TEST(ParseTraceparent, LaterVersionWithMoreFields_IsReadUpToTheFlags) {
  absl::StatusOr<SpanContext> context =
      ParseTraceparent(Header("cc") + "-what-the-future-will-be-like");
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->span_id.Hex(), kParent);
  EXPECT_TRUE(context->sampled());
}

TEST(ParseTraceparent, LaterVersionFlags_KeepOnlyTheSampledBit) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(Header("cc", kTrace, kParent, "09"));
  ASSERT_TRUE(context.ok()) << context.status();
  EXPECT_EQ(context->trace_flags, kSampledFlag);
}

TEST(ParseTraceparent, LaterVersionWithoutDashAfterFlags_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("cc") + "what"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("followed by '-'")));
}

TEST(ParseTraceparent, LaterVersionTooShort_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("cc").substr(0, 54)),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, LaterVersionWithInvalidIds_IsInvalid) {
  EXPECT_THAT(ParseTraceparent(Header("cc", std::string(32, '0')) + "-x"),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseTraceparent(Header("cc", kTrace, std::string(16, '0'))),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ParseTraceparent, LaterVersionLongerThanTheBound_IsInvalid) {
  const std::string header = Header("cc") + "-";
  const std::string at_bound = header + std::string(kMaxTraceparentBytes - header.size(), 'x');
  EXPECT_TRUE(ParseTraceparent(at_bound).ok());
  EXPECT_THAT(ParseTraceparent(at_bound + "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 256")));
  EXPECT_THAT(ParseTraceparent(Header("cc") + "-" + std::string(1 << 20, 'x')),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(FormatTraceparent, RoundTripsAValidHeader) {
  for (const char* flags : {"00", "01"}) {
    const std::string header = Header("00", kTrace, kParent, flags);
    absl::StatusOr<SpanContext> context = ParseTraceparent(header);
    ASSERT_TRUE(context.ok());
    EXPECT_EQ(FormatTraceparent(*context), header);
  }
}

TEST(FormatTraceparent, WritesVersion00AndOnlyTheSampledFlag) {
  absl::StatusOr<SpanContext> context = ParseTraceparent(Header("00", kTrace, kParent, "ff"));
  ASSERT_TRUE(context.ok());
  EXPECT_EQ(FormatTraceparent(*context), Header("00", kTrace, kParent, "01"));
  context = ParseTraceparent(Header("cc") + "-more");
  ASSERT_TRUE(context.ok());
  EXPECT_EQ(FormatTraceparent(*context), Header("00"));
}

TEST(BoundTracestate, ShortValue_IsCarriedUnchanged) {
  const std::string value = "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE";
  EXPECT_EQ(BoundTracestate(value), value);
  EXPECT_EQ(BoundTracestate(""), "");
}

TEST(BoundTracestate, MoreThan32Members_IsDiscarded) {
  std::vector<std::string> members;
  for (int i = 0; i < 33; ++i) members.push_back(absl::StrCat("k", i, "=v"));
  EXPECT_EQ(BoundTracestate(absl::StrJoin(members, ",")), "");
  members.pop_back();
  EXPECT_EQ(BoundTracestate(absl::StrJoin(members, ",")), absl::StrJoin(members, ","));
}

TEST(BoundTracestate, HugeValueOfManyMembers_IsDiscarded) {
  std::string value;
  for (int i = 0; i < 100'000; ++i) absl::StrAppend(&value, "k", i, "=v,");
  EXPECT_EQ(BoundTracestate(value), "");
}

TEST(BoundTracestate, EmptyMembers_DoNotCount) {
  std::vector<std::string> members;
  for (int i = 0; i < 32; ++i) members.push_back(absl::StrCat("k", i, "=v"));
  const std::string value = absl::StrJoin(members, ",,,");
  EXPECT_EQ(BoundTracestate(value), value);
}

TEST(BoundTracestate, NonPrintableBytes_AreDiscarded) {
  EXPECT_EQ(BoundTracestate("a=b\r\nX-Injected: 1"), "");
  EXPECT_EQ(BoundTracestate("a=\xc3\xa9"), "");
}

TEST(BoundTracestate, LongValue_DropsLongMembersFirstThenFromTheEnd) {
  const std::string long_member = "long=" + std::string(200, 'x');
  std::vector<std::string> members = {"first=1", long_member};
  for (int i = 0; i < 20; ++i) members.push_back(absl::StrCat("m", i, "=", std::string(30, 'y')));
  const std::string bounded = BoundTracestate(absl::StrJoin(members, ","));
  EXPECT_LE(bounded.size(), kMaxTracestateBytes);
  EXPECT_THAT(bounded, ::testing::StartsWith("first=1,m0="));
  EXPECT_THAT(bounded, ::testing::Not(HasSubstr("long=")));
  // The later members went: 14 of the 33-byte ones fit after first=1.
  EXPECT_THAT(bounded, HasSubstr("m13="));
  EXPECT_THAT(bounded, ::testing::Not(HasSubstr("m14=")));
}

TEST(ExtractTraceContext, InvalidTraceparent_IsIgnoredWithItsTracestate) {
  EXPECT_EQ(ExtractTraceContext("garbage", "a=b"), std::nullopt);
}

TEST(ExtractTraceContext, ValidHeaders_GiveContextWithTracestate) {
  std::optional<SpanContext> context = ExtractTraceContext(Header("00"), "a=b");
  ASSERT_TRUE(context.has_value());
  EXPECT_EQ(context->trace_state, "a=b");
  EXPECT_EQ(context->trace_id.Hex(), kTrace);
}

// Hostile input, generated: mutations of a valid header and of a tracestate
// (bytes flipped, cut, repeated). Whatever comes in, an accepted traceparent
// has valid ids and formats back to 55 characters, and a carried
// tracestate is printable and within its bounds.
TEST(TraceContextHostileInput, MutatedHeaders_KeepEveryInvariant) {
  absl::BitGen random;
  const std::string valid = Header("00");
  const std::string state = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE";
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    std::string header = absl::Uniform(random, 0, 4) == 0 ? Header("cc") + "-x" : valid;
    std::string tracestate = state;
    for (std::string* text : {&header, &tracestate}) {
      const int edits = absl::Uniform(random, 0, 4);
      for (int e = 0; e < edits && !text->empty(); ++e) {
        const size_t at = absl::Uniform<size_t>(random, 0, text->size());
        switch (absl::Uniform(random, 0, 3)) {
          case 0:
            (*text)[at] = static_cast<char>(absl::Uniform(random, 0, 256));
            break;
          case 1:
            text->resize(at);
            break;
          default:
            *text += text->substr(at);
            break;
        }
      }
    }
    const absl::StatusOr<SpanContext> context = ParseTraceparent(header);
    if (context.ok()) {
      ++accepted;
      EXPECT_TRUE(context->IsValid()) << header;
      EXPECT_EQ(FormatTraceparent(*context).size(), 55u) << header;
      EXPECT_TRUE(ParseTraceparent(FormatTraceparent(*context)).ok()) << header;
    }
    const std::string carried = BoundTracestate(tracestate);
    EXPECT_LE(carried.size(), kMaxTracestateBytes);
    for (char c : carried) EXPECT_TRUE(c >= 0x20 && c <= 0x7e) << tracestate;
  }
  // The mutations leave some headers valid, so both paths ran.
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 20'000);
}

}  // namespace
}  // namespace taskboard::otel
