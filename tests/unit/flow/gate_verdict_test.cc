#include "scheduler/flow/gate_verdict.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::flow {
namespace {

MATCHER_P3(VerdictIs, pass, reason, found, "") {
  *result_listener << "pass=" << arg.pass << " reason=\"" << arg.reason << "\" found=" << arg.found;
  return arg.pass == pass && arg.reason == reason && arg.found == found;
}

TEST(ParseGateVerdict, JsonContinueFalse_Blocks) {
  EXPECT_THAT(ParseGateVerdict(R"({"continue": false, "reason": "tests fail"})"),
              VerdictIs(false, "tests fail", true));
}

TEST(ParseGateVerdict, JsonContinueTrue_Passes) {
  EXPECT_THAT(ParseGateVerdict(R"({"continue": true})"), VerdictIs(true, "", true));
}

TEST(ParseGateVerdict, JsonContinue_CheckedBeforePass) {
  EXPECT_THAT(ParseGateVerdict(R"({"pass": true, "continue": false})"), VerdictIs(false, "", true));
}

TEST(ParseGateVerdict, JsonPassFalse_Blocks) {
  EXPECT_THAT(ParseGateVerdict(R"({"pass": false, "reason": "r"})"), VerdictIs(false, "r", true));
}

TEST(ParseGateVerdict, JsonNonBooleanPass_FallsToVerdictWord) {
  EXPECT_THAT(ParseGateVerdict(R"({"pass": "yes", "verdict": "stop"})"),
              VerdictIs(false, "", true));
}

TEST(ParseGateVerdict, JsonVerdictBlockingWords_Block) {
  for (const char* word : {"block", "FAIL", "Stop", "reject", "halt", "no", "No", "BLOCK: risky"}) {
    SCOPED_TRACE(word);
    std::string output = std::string(R"({"verdict": ")") + word + R"("})";
    EXPECT_THAT(ParseGateVerdict(output), VerdictIs(false, "", true));
  }
}

TEST(ParseGateVerdict, JsonVerdictOtherWords_Pass) {
  for (const char* word : {"pass", "not blocked", "failing", "none", "nope", "ok", ""}) {
    SCOPED_TRACE(word);
    std::string output = std::string(R"({"verdict": ")") + word + R"("})";
    EXPECT_THAT(ParseGateVerdict(output), VerdictIs(true, "", true));
  }
}

TEST(ParseGateVerdict, EmbeddedJson_ReasonKept) {
  EXPECT_THAT(ParseGateVerdict("I reviewed it.\n```json\n{\"verdict\": \"reject\", \"reason\": "
                               "\"no tests\"}\n```\nVERDICT: PASS"),
              VerdictIs(false, "no tests", true));
}

TEST(ParseGateVerdict, JsonWithoutDecision_FallsThroughToText) {
  EXPECT_THAT(ParseGateVerdict("{\"summary\": \"fine\"}\nVERDICT: BLOCK - broken build"),
              VerdictIs(false, "broken build", true));
}

TEST(ParseGateVerdict, JsonArray_FallsThroughToText) {
  EXPECT_THAT(ParseGateVerdict("[1, 2]\nVERDICT: FAIL"), VerdictIs(false, "", true));
}

TEST(ParseGateVerdict, TextPass_PassesWithReason) {
  EXPECT_THAT(ParseGateVerdict("Looks fine.\nVERDICT: PASS \u2014 all checks green"),
              VerdictIs(true, "all checks green", true));
}

TEST(ParseGateVerdict, TextBlockingWords_Block) {
  for (const char* word : {"BLOCK", "FAIL", "STOP", "REJECT", "HALT"}) {
    SCOPED_TRACE(word);
    EXPECT_THAT(ParseGateVerdict(std::string("VERDICT: ") + word), VerdictIs(false, "", true));
  }
}

TEST(ParseGateVerdict, TextOk_Passes) {
  EXPECT_THAT(ParseGateVerdict("VERDICT: OK"), VerdictIs(true, "", true));
}

TEST(ParseGateVerdict, TextLastVerdictWins) {
  EXPECT_THAT(ParseGateVerdict("Answer with VERDICT: PASS or VERDICT: BLOCK.\n\n"
                               "VERDICT: BLOCK: coverage dropped\n"),
              VerdictIs(false, "coverage dropped", true));
  EXPECT_THAT(ParseGateVerdict("VERDICT: BLOCK\nOn reflection, VERDICT: PASS"),
              VerdictIs(true, "", true));
}

TEST(ParseGateVerdict, TextUnknownWordAfterLastVerdict_EarlierOneCounts) {
  EXPECT_THAT(ParseGateVerdict("VERDICT: HALT - stop\nVERDICT: MAYBE"),
              VerdictIs(false, "stop", true));
}

TEST(ParseGateVerdict, TextEmphasis_Tolerated) {
  EXPECT_THAT(ParseGateVerdict("**VERDICT**: BLOCK - reason a"),
              VerdictIs(false, "reason a", true));
  EXPECT_THAT(ParseGateVerdict("__VERDICT__ = **PASS** - reason b"),
              VerdictIs(true, "reason b", true));
  EXPECT_THAT(ParseGateVerdict("*VERDICT:* REJECT"), VerdictIs(false, "", true));
  EXPECT_THAT(ParseGateVerdict("**VERDICT: STOP**"), VerdictIs(false, "", true));
}

TEST(ParseGateVerdict, TextEqualsSeparatorAndCase_Accepted) {
  EXPECT_THAT(ParseGateVerdict("verdict=block"), VerdictIs(false, "", true));
  EXPECT_THAT(ParseGateVerdict("Verdict : Pass"), VerdictIs(true, "", true));
}

TEST(ParseGateVerdict, TextVerdictInsideWord_Ignored) {
  EXPECT_THAT(ParseGateVerdict("preverdict: BLOCK"), VerdictIs(true, "no verdict found", false));
  EXPECT_THAT(ParseGateVerdict("VERDICT: BLOCKER"), VerdictIs(true, "no verdict found", false));
}

TEST(ParseGateVerdict, TextEmptyRestOfLine_UsesNextNonEmptyLine) {
  EXPECT_THAT(ParseGateVerdict("VERDICT: BLOCK\n\n  The migration drops a column.  \nMore."),
              VerdictIs(false, "The migration drops a column.", true));
}

TEST(ParseGateVerdict, NoVerdict_FailsOpen) {
  EXPECT_THAT(ParseGateVerdict("I think this is mostly fine."),
              VerdictIs(true, "no verdict found", false));
  EXPECT_THAT(ParseGateVerdict(""), VerdictIs(true, "no verdict found", false));
}

}  // namespace
}  // namespace taskboard::flow
