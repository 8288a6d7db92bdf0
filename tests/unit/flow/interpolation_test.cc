#include "scheduler/flow/interpolation.h"

#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

StepValue Done(std::string output, std::optional<Json> json = std::nullopt) {
  StepValue step;
  step.output = std::move(output);
  step.json = std::move(json);
  return step;
}

StepValue NotDone(StepValue::State state, bool optional) {
  StepValue step;
  step.state = state;
  step.optional = optional;
  return step;
}

// Interpolates `tmpl`, failing the test (and returning "") on error.
std::string Render(absl::string_view tmpl, const InterpolationContext& ctx) {
  absl::StatusOr<std::string> text = Interpolate(tmpl, ctx);
  EXPECT_THAT(text, IsOk());
  return text.ok() ? *text : "";
}

void ExpectUnresolved(absl::string_view tmpl, const InterpolationContext& ctx,
                      const std::string& message) {
  EXPECT_THAT(Interpolate(tmpl, ctx), StatusIs(absl::StatusCode::kInvalidArgument, message))
      << "template: " << tmpl;
}

// ---------------------------------------------------------------------------
// FindPlaceholders

TEST(FindPlaceholders, MixedText_ReportsOffsetsLengthsAndSegments) {
  std::vector<Placeholder> found =
      FindPlaceholders("Summarise {steps.a.output} for {args.topic}.", "");
  ASSERT_EQ(found.size(), 2);
  EXPECT_EQ(found[0].text, "steps.a.output");
  EXPECT_THAT(found[0].segments, ElementsAre("steps", "a", "output"));
  EXPECT_EQ(found[0].offset, 10);
  EXPECT_EQ(found[0].length, 16);
  EXPECT_EQ(found[1].text, "args.topic");
  EXPECT_EQ(found[1].offset, 31);
  EXPECT_EQ(found[1].length, 12);
}

TEST(FindPlaceholders, AdjacentAndAtBothEnds_FindsAll) {
  std::vector<Placeholder> found = FindPlaceholders("{args.a}{args.b}-{args.c}", "");
  ASSERT_EQ(found.size(), 3);
  EXPECT_EQ(found[0].offset, 0);
  EXPECT_EQ(found[1].offset, 8);
  EXPECT_EQ(found[2].offset, 17);
  EXPECT_EQ(found[2].offset + found[2].length, 25);
}

TEST(FindPlaceholders, DoubledBrace_FindsInnerPlaceholder) {
  std::vector<Placeholder> found = FindPlaceholders("{{args.a}}", "");
  ASSERT_EQ(found.size(), 1);
  EXPECT_EQ(found[0].offset, 1);
  EXPECT_EQ(found[0].length, 8);
}

TEST(FindPlaceholders, JsonSpacesAndEmptyBraces_AreNotPlaceholders) {
  EXPECT_THAT(FindPlaceholders(R"({"a":1} { args } {} {args.} {.args} {args..x} {args)", ""),
              IsEmpty());
}

TEST(FindPlaceholders, UnknownRoot_IsOrdinaryText) {
  EXPECT_THAT(FindPlaceholders("fn({name}) {config.key} {output}", ""), IsEmpty());
}

TEST(FindPlaceholders, HyphenatedSegments_AreAccepted) {
  std::vector<Placeholder> found = FindPlaceholders("{steps.fetch-data.output}", "");
  ASSERT_EQ(found.size(), 1);
  EXPECT_THAT(found[0].segments, ElementsAre("steps", "fetch-data", "output"));
}

TEST(FindPlaceholders, ItemRoot_FollowsItemVar) {
  // Outside a map `item` is still a root, so a stray {item} gets reported.
  EXPECT_EQ(FindPlaceholders("{item}", "").size(), 1);
  EXPECT_EQ(FindPlaceholders("{item.path}", "item").size(), 1);
  EXPECT_EQ(FindPlaceholders("{file.path}", "file").size(), 1);
  // `item` stays a root under `as`, so a leftover {item} is reported.
  EXPECT_EQ(FindPlaceholders("{item.path}", "file").size(), 1);
  EXPECT_THAT(FindPlaceholders("{file.path}", ""), IsEmpty());
}

// ---------------------------------------------------------------------------
// RenderValue

TEST(RenderValue, String_IsInsertedAsIs) { EXPECT_EQ(RenderValue(Json("a \"b\"")), "a \"b\""); }

TEST(RenderValue, Null_IsEmpty) { EXPECT_EQ(RenderValue(Json(nullptr)), ""); }

TEST(RenderValue, Numbers_AreJsonText) {
  EXPECT_EQ(RenderValue(Json(42)), "42");
  EXPECT_EQ(RenderValue(Json(-7)), "-7");
  EXPECT_EQ(RenderValue(Json(2.5)), "2.5");
}

TEST(RenderValue, Booleans_AreJsonText) {
  EXPECT_EQ(RenderValue(Json(true)), "true");
  EXPECT_EQ(RenderValue(Json(false)), "false");
}

TEST(RenderValue, Object_IsPrettyPrintedInInsertionOrder) {
  Json value = {{"z", 1}, {"a", {{"b", "c"}}}};
  EXPECT_EQ(RenderValue(value), "{\n  \"z\": 1,\n  \"a\": {\n    \"b\": \"c\"\n  }\n}");
}

TEST(RenderValue, Array_IsPrettyPrinted) {
  EXPECT_EQ(RenderValue(Json::array({1, "x", nullptr})), "[\n  1,\n  \"x\",\n  null\n]");
  EXPECT_EQ(RenderValue(Json::array()), "[]");
}

// ---------------------------------------------------------------------------
// Interpolate: args

TEST(Interpolate, NoPlaceholders_ReturnsTemplate) {
  EXPECT_EQ(Render("plain text, ünïcødé ✓", {}), "plain text, ünïcødé ✓");
  EXPECT_EQ(Render("", {}), "");
}

TEST(Interpolate, ArgString_ResolvesAsIs) {
  Json args = {{"topic", "rust"}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render("About {args.topic}.", ctx), "About rust.");
}

TEST(Interpolate, ArgNumberBoolAndNull_RenderAsJsonTextOrEmpty) {
  Json args = {{"n", 3}, {"f", 0.25}, {"b", true}, {"z", nullptr}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render("{args.n}|{args.f}|{args.b}|{args.z}|", ctx), "3|0.25|true||");
}

TEST(Interpolate, ArgPath_ResolvesNestedValue) {
  Json args = {{"repo", {{"owner", "me"}, {"tags", {"a", "b"}}}}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render("{args.repo.owner}/{args.repo.tags.1}", ctx), "me/b");
}

TEST(Interpolate, AllArgs_RendersObjectPretty) {
  Json args = {{"a", 1}, {"b", "x"}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render("{args}", ctx), "{\n  \"a\": 1,\n  \"b\": \"x\"\n}");
}

TEST(Interpolate, AllArgsWithNullArgs_RendersEmptyObject) { EXPECT_EQ(Render("{args}", {}), "{}"); }

TEST(Interpolate, MissingArg_IsUnresolved) {
  ExpectUnresolved("{args.x}", {}, "unresolved placeholder {args.x}: arg 'x' has no value");
}

TEST(Interpolate, MissingArgPath_IsUnresolved) {
  Json args = {{"repo", {{"owner", "me"}}}};
  InterpolationContext ctx;
  ctx.args = &args;
  ExpectUnresolved("{args.repo.name.first}", ctx,
                   "unresolved placeholder {args.repo.name.first}: "
                   "path 'name.first' not found in args.repo");
}

// ---------------------------------------------------------------------------
// Interpolate: steps

TEST(Interpolate, StepOutput_ResolvesText) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("result A");
  EXPECT_EQ(Render("Given: {steps.a.output}", ctx), "Given: result A");
}

TEST(Interpolate, StepJson_RendersPretty) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("raw", Json::array({{{"name", "x"}}}));
  EXPECT_EQ(Render("{steps.d.json}", ctx), "[\n  {\n    \"name\": \"x\"\n  }\n]");
}

TEST(Interpolate, StepJsonArrayIndex_ResolvesElement) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json::array({{{"name", "x"}}, {{"name", "y"}}}));
  EXPECT_EQ(Render("{steps.d.json.1.name} then {steps.d.json.0.name}", ctx), "y then x");
}

TEST(Interpolate, StepJsonObjectPath_ResolvesValue) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json{{"summary", {{"score", 9}}}});
  EXPECT_EQ(Render("score={steps.d.json.summary.score}", ctx), "score=9");
}

TEST(Interpolate, HyphenatedStepId_Resolves) {
  InterpolationContext ctx;
  ctx.steps["fetch-data"] = Done("rows");
  EXPECT_EQ(Render("{steps.fetch-data.output}", ctx), "rows");
}

TEST(Interpolate, StepNotUpstream_IsUnresolved) {
  ExpectUnresolved("{steps.x.output}", {},
                   "unresolved placeholder {steps.x.output}: phase 'x' is not upstream of this "
                   "phase");
}

TEST(Interpolate, StepJsonWhenOutputIsNotJson_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["x"] = Done("just text");
  ExpectUnresolved("{steps.x.json}", ctx,
                   "unresolved placeholder {steps.x.json}: phase 'x' output is not JSON");
}

TEST(Interpolate, StepJsonMissingPath_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json{{"a", {{"c", 1}}}});
  ExpectUnresolved("{steps.d.json.a.b}", ctx,
                   "unresolved placeholder {steps.d.json.a.b}: path 'a.b' not found in "
                   "steps.d.json");
}

TEST(Interpolate, StepJsonIndexOutOfRangeOrNotNumeric_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json::array({1, 2}));
  ExpectUnresolved("{steps.d.json.2}", ctx,
                   "unresolved placeholder {steps.d.json.2}: path '2' not found in steps.d.json");
  ExpectUnresolved("{steps.d.json.-1}", ctx,
                   "unresolved placeholder {steps.d.json.-1}: path '-1' not found in "
                   "steps.d.json");
  ExpectUnresolved("{steps.d.json.first}", ctx,
                   "unresolved placeholder {steps.d.json.first}: path 'first' not found in "
                   "steps.d.json");
}

TEST(Interpolate, PathIntoScalar_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json{{"n", 5}});
  ExpectUnresolved("{steps.d.json.n.x}", ctx,
                   "unresolved placeholder {steps.d.json.n.x}: path 'n.x' not found in "
                   "steps.d.json");
}

TEST(Interpolate, MalformedStepPlaceholder_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("x");
  const std::string why =
      ": expected {steps.ID.output}, {steps.ID.json[.path]} or, for an approval, "
      "{steps.ID.output.FIELD}";
  ExpectUnresolved("{steps.a}", ctx, "unresolved placeholder {steps.a}" + why);
  ExpectUnresolved("{steps.a.text}", ctx, "unresolved placeholder {steps.a.text}" + why);
  ExpectUnresolved("{steps.a.output.x.y}", ctx,
                   "unresolved placeholder {steps.a.output.x.y}" + why);
  // Only an approval step's output has named fields (its form values).
  ExpectUnresolved("{steps.a.output.x}", ctx,
                   "unresolved placeholder {steps.a.output.x}: only approval steps have named "
                   "outputs (their form values); phase 'a' is not one: read its JSON output "
                   "with {steps.a.json.x}");
}

TEST(Interpolate, NonOptionalFailedStep_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["x"] = NotDone(StepValue::State::kFailed, /*optional=*/false);
  ctx.steps["y"] = NotDone(StepValue::State::kSkipped, /*optional=*/false);
  ExpectUnresolved("{steps.x.output}", ctx,
                   "unresolved placeholder {steps.x.output}: phase 'x' failed");
  ExpectUnresolved("{steps.y.json}", ctx,
                   "unresolved placeholder {steps.y.json}: phase 'y' was skipped");
}

TEST(Interpolate, OptionalFailedOrSkippedStep_ResolvesToEmpty) {
  InterpolationContext ctx;
  ctx.steps["x"] = NotDone(StepValue::State::kFailed, /*optional=*/true);
  ctx.steps["y"] = NotDone(StepValue::State::kSkipped, /*optional=*/true);
  EXPECT_EQ(Render("[{steps.x.output}|{steps.x.json}|{steps.y.json.a.0}|{steps.y.output}]", ctx),
            "[|||]");
}

// ---------------------------------------------------------------------------
// Interpolate: item

TEST(Interpolate, Item_ResolvesWholeItemAndPath) {
  Json item = {{"path", "src/a.cc"}, {"lines", 10}};
  InterpolationContext ctx;
  ctx.item_var = "item";
  ctx.item = &item;
  EXPECT_EQ(Render("{item.path}:{item.lines}", ctx), "src/a.cc:10");
  EXPECT_EQ(Render("{item}", ctx), "{\n  \"path\": \"src/a.cc\",\n  \"lines\": 10\n}");
}

TEST(Interpolate, ItemUnderAsName_Resolves) {
  Json item = "src/a.cc";
  InterpolationContext ctx;
  ctx.item_var = "file";
  ctx.item = &item;
  EXPECT_EQ(Render("Review {file}", ctx), "Review src/a.cc");
}

TEST(Interpolate, ItemUnderAsName_PlainItemIsUnresolved) {
  Json item = "src/a.cc";
  InterpolationContext ctx;
  ctx.item_var = "file";
  ctx.item = &item;
  ExpectUnresolved("Review {item}", ctx,
                   "unresolved placeholder {item}: this map names its item 'file'; use {file}");
}

TEST(Interpolate, ItemMissingPath_IsUnresolved) {
  Json item = {{"path", "a"}};
  InterpolationContext ctx;
  ctx.item_var = "file";
  ctx.item = &item;
  ExpectUnresolved("{file.size}", ctx,
                   "unresolved placeholder {file.size}: path 'size' not found in file");
}

TEST(Interpolate, ItemOutsideMap_IsUnresolved) {
  ExpectUnresolved("{item.path}", {}, "unresolved placeholder {item.path}: not inside a map phase");
}

// ---------------------------------------------------------------------------
// Interpolate: previous

TEST(Interpolate, PreviousOutput_IsLastDoneCandidate) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("A");
  ctx.steps["b"] = Done("B");
  ctx.previous_candidates = {"a", "b"};
  EXPECT_EQ(Render("{previous.output}", ctx), "B");
}

TEST(Interpolate, PreviousOutput_SkipsOptionalFailedCandidatesFromTheEnd) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("A");
  ctx.steps["b"] = NotDone(StepValue::State::kFailed, /*optional=*/true);
  ctx.previous_candidates = {"a", "b"};
  EXPECT_EQ(Render("{previous.output}", ctx), "A");
}

TEST(Interpolate, PreviousOutput_AllCandidatesOptionalAndNotDone_ResolvesToEmpty) {
  InterpolationContext ctx;
  ctx.steps["a"] = NotDone(StepValue::State::kSkipped, /*optional=*/true);
  ctx.steps["b"] = NotDone(StepValue::State::kFailed, /*optional=*/true);
  ctx.previous_candidates = {"a", "b"};
  EXPECT_EQ(Render("<{previous.output}>", ctx), "<>");
}

TEST(Interpolate, PreviousOutput_NoDoneCandidate_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["a"] = NotDone(StepValue::State::kSkipped, /*optional=*/true);
  ctx.steps["b"] = NotDone(StepValue::State::kFailed, /*optional=*/false);
  ctx.previous_candidates = {"a", "b"};
  ExpectUnresolved("{previous.output}", ctx,
                   "unresolved placeholder {previous.output}: no dependency of this phase is done");
}

TEST(Interpolate, PreviousOutput_NoCandidates_IsUnresolved) {
  ExpectUnresolved("{previous.output}", {},
                   "unresolved placeholder {previous.output}: this phase has no dependencies");
}

TEST(Interpolate, PreviousOtherField_IsUnresolved) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("A");
  ctx.previous_candidates = {"a"};
  ExpectUnresolved("{previous.json}", ctx,
                   "unresolved placeholder {previous.json}: expected {previous.output}");
}

// ---------------------------------------------------------------------------
// Interpolate: surrounding text

TEST(Interpolate, NonPlaceholderBraces_AreLeftAlone) {
  Json args = {{"x", "X"}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render(R"(Reply {"a":1} or { x } or {name} or {} with {args.x})", ctx),
            R"(Reply {"a":1} or { x } or {name} or {} with X)");
}

TEST(Interpolate, AdjacentPlaceholdersDoubledBracesAndUnicode_AllResolve) {
  Json args = {{"a", "α"}, {"b", "β"}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render("{args.a}{args.b} → {{args.a}} ✓{args.b}", ctx), "αβ → {α} ✓β");
}

TEST(Interpolate, InsertedValueHoldingPlaceholderText_IsNotInterpolatedAgain) {
  Json args = {{"x", "{args.y}"}, {"y", "Y"}};
  InterpolationContext ctx;
  ctx.args = &args;
  EXPECT_EQ(Render("{args.x} {args.y}", ctx), "{args.y} Y");
}

TEST(Interpolate, SeveralUnresolved_AreReportedTogetherOnePerLine) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("A");
  ExpectUnresolved("{args.x} {steps.a.output} {steps.b.output} {args.x}", ctx,
                   "unresolved placeholder {args.x}: arg 'x' has no value\n"
                   "unresolved placeholder {steps.b.output}: phase 'b' is not upstream of this "
                   "phase");
}

// ---------------------------------------------------------------------------
// InterpolateValue

TEST(InterpolateValue, SolePlaceholder_ReturnsJsonValueAsIs) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json::array({1, 2, 3}));
  absl::StatusOr<Json> value = InterpolateValue("  {steps.d.json}\n", ctx);
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, Json::array({1, 2, 3}));
}

TEST(InterpolateValue, SoleArgPlaceholder_KeepsItsType) {
  Json args = {{"n", 4}, {"files", {"a", "b"}}};
  InterpolationContext ctx;
  ctx.args = &args;
  absl::StatusOr<Json> files = InterpolateValue("{args.files}", ctx);
  ASSERT_THAT(files, IsOk());
  EXPECT_EQ(*files, Json::array({"a", "b"}));
  absl::StatusOr<Json> n = InterpolateValue("{args.n}", ctx);
  ASSERT_THAT(n, IsOk());
  EXPECT_EQ(*n, Json(4));
}

TEST(InterpolateValue, SoleOutputPlaceholder_IsText) {
  InterpolationContext ctx;
  ctx.steps["a"] = Done("[1]", Json::array({1}));
  absl::StatusOr<Json> value = InterpolateValue("{steps.a.output}", ctx);
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, Json("[1]"));
}

TEST(InterpolateValue, MixedText_ReturnsInterpolatedString) {
  InterpolationContext ctx;
  ctx.steps["d"] = Done("", Json::array({1}));
  absl::StatusOr<Json> value = InterpolateValue("items: {steps.d.json}", ctx);
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, Json("items: [\n  1\n]"));
}

TEST(InterpolateValue, TwoPlaceholders_ReturnsInterpolatedString) {
  Json args = {{"a", 1}, {"b", 2}};
  InterpolationContext ctx;
  ctx.args = &args;
  absl::StatusOr<Json> value = InterpolateValue("{args.a}{args.b}", ctx);
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, Json("12"));
}

TEST(InterpolateValue, SoleUnresolvedPlaceholder_Fails) {
  EXPECT_THAT(InterpolateValue("{steps.d.json}", {}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "unresolved placeholder {steps.d.json}: phase 'd' is not upstream of this "
                       "phase"));
}

}  // namespace
}  // namespace taskboard::flow
