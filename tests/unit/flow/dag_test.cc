#include "scheduler/flow/dag.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::flow {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::UnorderedElementsAre;

// n0 <- n1 <- ... <- n{length-1}: each node depends on the one before.
std::vector<DagNode> Chain(int length) {
  std::vector<DagNode> nodes;
  nodes.reserve(length);
  for (int i = 0; i < length; ++i) {
    DagNode node{absl::StrCat("n", i), {}};
    if (i > 0) node.deps.push_back(absl::StrCat("n", i - 1));
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// ---------------------------------------------------------------------------
// FindCycle

TEST(FindCycle, AcyclicGraph_None) {
  EXPECT_EQ(FindCycle({{"a", {}}, {"b", {"a"}}, {"c", {"a", "b"}}}), std::nullopt);
}

TEST(FindCycle, EmptyGraph_None) { EXPECT_EQ(FindCycle({}), std::nullopt); }

TEST(FindCycle, UnknownDependency_Ignored) {
  EXPECT_EQ(FindCycle({{"a", {"ghost"}}, {"b", {"a", "phantom"}}}), std::nullopt);
}

TEST(FindCycle, TwoNodes_ClosedPath) {
  EXPECT_THAT(FindCycle({{"a", {"b"}}, {"b", {"a"}}}), Optional(ElementsAre("a", "b", "a")));
}

TEST(FindCycle, SelfDependency_ClosedPath) {
  EXPECT_THAT(FindCycle({{"x", {}}, {"a", {"a"}}}), Optional(ElementsAre("a", "a")));
}

TEST(FindCycle, LongerCycle_PathFollowsDependencies) {
  std::optional<std::vector<std::string>> cycle =
      FindCycle({{"a", {"c"}}, {"b", {"a"}}, {"c", {"b"}}});
  EXPECT_THAT(cycle, Optional(ElementsAre("a", "c", "b", "a")));
  EXPECT_EQ(FormatCycle(*cycle), "a -> c -> b -> a");
}

TEST(FindCycle, CycleDownstreamOfStart_ReportsOnlyTheLoop) {
  // `start` leads into the loop but is not part of it.
  EXPECT_THAT(FindCycle({{"start", {"p"}}, {"p", {"q"}}, {"q", {"r"}}, {"r", {"p"}}}),
              Optional(ElementsAre("p", "q", "r", "p")));
}

TEST(FindCycle, DiamondIsNotACycle) {
  EXPECT_EQ(FindCycle({{"a", {}}, {"b", {"a"}}, {"c", {"a"}}, {"d", {"b", "c"}}}), std::nullopt);
}

TEST(FindCycle, VeryLongChain_NoStackOverflow) {
  std::vector<DagNode> nodes = Chain(10000);
  EXPECT_EQ(FindCycle(nodes), std::nullopt);
  nodes.front().deps.push_back("n9999");
  std::optional<std::vector<std::string>> cycle = FindCycle(nodes);
  ASSERT_TRUE(cycle.has_value());
  EXPECT_EQ(cycle->size(), 10001u);
  EXPECT_EQ(cycle->front(), cycle->back());
}

// ---------------------------------------------------------------------------
// TopologicalLayers

TEST(TopologicalLayers, Diamond_ThreeLayers) {
  EXPECT_THAT(TopologicalLayers({{"a", {}}, {"b", {"a"}}, {"c", {"a"}}, {"d", {"b", "c"}}}),
              ElementsAre(ElementsAre("a"), ElementsAre("b", "c"), ElementsAre("d")));
}

TEST(TopologicalLayers, DeclarationOrderKeptWithinLayer) {
  EXPECT_THAT(TopologicalLayers({{"z", {}}, {"y", {}}, {"x", {"z"}}, {"a", {}}}),
              ElementsAre(ElementsAre("z", "y", "a"), ElementsAre("x")));
}

TEST(TopologicalLayers, LayerIsOneBelowDeepestDependency) {
  // d depends on a (layer 0) and c (layer 2), so it sits in layer 3.
  EXPECT_THAT(TopologicalLayers({{"a", {}}, {"b", {"a"}}, {"c", {"b"}}, {"d", {"a", "c"}}}),
              ElementsAre(ElementsAre("a"), ElementsAre("b"), ElementsAre("c"), ElementsAre("d")));
}

TEST(TopologicalLayers, Chain_OneNodePerLayer) {
  EXPECT_THAT(TopologicalLayers(Chain(3)),
              ElementsAre(ElementsAre("n0"), ElementsAre("n1"), ElementsAre("n2")));
}

TEST(TopologicalLayers, VeryLongChain_NoStackOverflow) {
  std::vector<std::vector<std::string>> layers = TopologicalLayers(Chain(10000));
  ASSERT_EQ(layers.size(), 10000u);
  EXPECT_THAT(layers.front(), ElementsAre("n0"));
  EXPECT_THAT(layers.back(), ElementsAre("n9999"));
}

TEST(TopologicalLayers, DuplicateDependency_CountedOnce) {
  EXPECT_THAT(TopologicalLayers({{"a", {}}, {"b", {"a", "a"}}}),
              ElementsAre(ElementsAre("a"), ElementsAre("b")));
}

TEST(TopologicalLayers, UnknownDependency_Ignored) {
  EXPECT_THAT(TopologicalLayers({{"a", {"ghost"}}, {"b", {"a"}}}),
              ElementsAre(ElementsAre("a"), ElementsAre("b")));
}

TEST(TopologicalLayers, Empty_NoLayers) { EXPECT_THAT(TopologicalLayers({}), IsEmpty()); }

// ---------------------------------------------------------------------------
// UpstreamClosure

TEST(UpstreamClosure, Transitive_ExcludesSelfAndUnrelated) {
  const std::vector<DagNode> nodes = {{"a", {}},         {"b", {"a"}}, {"c", {"b"}},
                                      {"d", {"c", "x"}}, {"x", {}},    {"other", {"a"}}};
  EXPECT_THAT(UpstreamClosure(nodes, "d"), UnorderedElementsAre("a", "b", "c", "x"));
  EXPECT_THAT(UpstreamClosure(nodes, "a"), IsEmpty());
  EXPECT_THAT(UpstreamClosure(nodes, "missing"), IsEmpty());
}

TEST(UpstreamClosure, Cycle_Terminates) {
  EXPECT_THAT(UpstreamClosure({{"a", {"b"}}, {"b", {"a"}}}, "a"), UnorderedElementsAre("b"));
}

// One index, many questions: each node's closure as UpstreamClosure gives it.
TEST(DagIndex, EveryNodesClosure_SameAsUpstreamClosure) {
  const std::vector<DagNode> nodes = {{"a", {}},         {"b", {"a"}}, {"c", {"b"}},
                                      {"d", {"c", "x"}}, {"x", {}},    {"other", {"a"}}};
  const DagIndex index(nodes);
  for (const DagNode& node : nodes) {
    EXPECT_EQ(index.UpstreamClosure(node.id), UpstreamClosure(nodes, node.id)) << node.id;
  }
  EXPECT_THAT(index.UpstreamClosure("c"), UnorderedElementsAre("a", "b"));
  EXPECT_THAT(index.UpstreamClosure("missing"), IsEmpty());
}

TEST(UpstreamClosure, VeryLongChain_ContainsEveryAncestor) {
  EXPECT_EQ(UpstreamClosure(Chain(10000), "n9999").size(), 9999u);
}

}  // namespace
}  // namespace taskboard::flow
