#include "scheduler/flow/input_hash.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/canonical_json.h"
#include "common/json.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::flow {
namespace {

using ::testing::MatchesRegex;
using ::testing::Ne;

PhaseInputs Inputs() {
  return PhaseInputs{"scout", "model-a", {"read", "grep"}, {"Summarize src/main.cc"}};
}

TEST(PhaseInputHash, LowerCaseHexSha256) {
  EXPECT_THAT(PhaseInputHash(Inputs()), MatchesRegex("[0-9a-f]{64}"));
}

// Pinned: a hash stored by an earlier version must still match on resume.
// sha256 of {"agent":"scout","model":"model-a","tasks":["Summarize src/main.cc"],
// "tools":["grep","read"],"v":1}.
TEST(PhaseInputHash, KnownInputs_StableAcrossVersions) {
  EXPECT_EQ(PhaseInputHash(Inputs()),
            "e3be8995ea0017f37649ce542c2189a8d9e6d504b70f73c18c073fe3110a76d3");
}

// The hash is of the canonical JSON document, whatever the text holds: quotes,
// control characters, non-ASCII and invalid UTF-8 are written as
// CanonicalJson writes them, so hashes stored by earlier versions still match.
TEST(PhaseInputHash, AnyText_IsTheHashOfTheCanonicalDocument) {
  const PhaseInputs inputs{"scout \"q\"",
                           "mod\x01el",
                           {"z\xff", "a\\b", "\xc3\xa9"},
                           {"line\nbreak\ttab", "", "caf\xc3\xa9 \xe2\x9c\x93"}};
  std::vector<std::string> tools = inputs.tools;
  std::sort(tools.begin(), tools.end());
  const Json doc = {{"agent", inputs.agent},
                    {"model", inputs.model},
                    {"tools", tools},
                    {"tasks", inputs.tasks},
                    {"v", 1}};
  EXPECT_EQ(PhaseInputHash(inputs), Sha256Hex(CanonicalJson(doc)));
}

TEST(PhaseInputHash, EqualInputs_EqualHashes) {
  EXPECT_EQ(PhaseInputHash(Inputs()), PhaseInputHash(Inputs()));
}

TEST(PhaseInputHash, ToolOrder_DoesNotMatter) {
  PhaseInputs reordered = Inputs();
  reordered.tools = {"grep", "read"};
  EXPECT_EQ(PhaseInputHash(reordered), PhaseInputHash(Inputs()));
}

TEST(PhaseInputHash, AgentChange_ChangesHash) {
  PhaseInputs changed = Inputs();
  changed.agent = "writer";
  EXPECT_THAT(PhaseInputHash(changed), Ne(PhaseInputHash(Inputs())));
}

TEST(PhaseInputHash, ModelChange_ChangesHash) {
  PhaseInputs changed = Inputs();
  changed.model = "model-b";
  EXPECT_THAT(PhaseInputHash(changed), Ne(PhaseInputHash(Inputs())));
}

TEST(PhaseInputHash, ToolSetChange_ChangesHash) {
  PhaseInputs changed = Inputs();
  changed.tools.push_back("bash");
  EXPECT_THAT(PhaseInputHash(changed), Ne(PhaseInputHash(Inputs())));
}

TEST(PhaseInputHash, TaskTextChange_ChangesHash) {
  PhaseInputs changed = Inputs();
  changed.tasks = {"Summarize src/main.cc "};
  EXPECT_THAT(PhaseInputHash(changed), Ne(PhaseInputHash(Inputs())));
}

TEST(PhaseInputHash, ItemOrder_Matters) {
  PhaseInputs forward = Inputs();
  forward.tasks = {"item a", "item b"};
  PhaseInputs backward = Inputs();
  backward.tasks = {"item b", "item a"};
  EXPECT_THAT(PhaseInputHash(forward), Ne(PhaseInputHash(backward)));
}

TEST(PhaseInputHash, FieldBoundaries_AreUnambiguous) {
  // Moving text between fields must not collide.
  PhaseInputs a{"ab", "", {}, {"c"}};
  PhaseInputs b{"a", "b", {}, {"c"}};
  PhaseInputs c{"a", "", {}, {"bc"}};
  EXPECT_THAT(PhaseInputHash(a), Ne(PhaseInputHash(b)));
  EXPECT_THAT(PhaseInputHash(b), Ne(PhaseInputHash(c)));
  // One task "x\ny" differs from two tasks "x", "y".
  PhaseInputs joined{"a", "m", {}, {"x\ny"}};
  PhaseInputs split{"a", "m", {}, {"x", "y"}};
  EXPECT_THAT(PhaseInputHash(joined), Ne(PhaseInputHash(split)));
}

}  // namespace
}  // namespace taskboard::flow
