#include "scheduler/flow/input_hash.h"

#include <string>

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
