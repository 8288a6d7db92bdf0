#include "scheduler/flow/run_args.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_loader.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::FlowErrorLines;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// A one-phase flow `f` with the given JSON args declaration.
v1::FlowSpec FlowWithArgs(absl::string_view args_json) {
  absl::StatusOr<v1::FlowSpec> spec = LoadFlowText(absl::StrCat(
      R"({"name": "f", "phases": [{"id": "a", "task": "x"}], "args": )", args_json, "}"));
  EXPECT_THAT(spec, IsOk());
  return spec.ok() ? *std::move(spec) : v1::FlowSpec();
}

std::vector<std::string> KeysInOrder(const Json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// ---------------------------------------------------------------------------
// BindRunArgs

TEST(BindRunArgs, DefaultsApplied_GivenValuesWin_UnsetOptionalIsNull) {
  const v1::FlowSpec spec =
      FlowWithArgs(R"({"dir": {"default": "."}, "depth": {"default": 2}, "tag": {}})");
  absl::StatusOr<Json> bound = BindRunArgs(spec, Json::parse(R"({"dir": "src"})"));
  ASSERT_THAT(bound, IsOk());
  // `tag` is optional with no default: bound to null, which interpolates as "".
  EXPECT_EQ(*bound, Json::parse(R"({"dir": "src", "depth": 2, "tag": null})"));
}

TEST(BindRunArgs, NullGiven_UsesDefaults) {
  absl::StatusOr<Json> bound = BindRunArgs(FlowWithArgs(R"({"dir": {"default": "."}})"), Json());
  ASSERT_THAT(bound, IsOk());
  EXPECT_EQ(*bound, Json::parse(R"({"dir": "."})"));
}

TEST(BindRunArgs, ObjectDefault_KeptStructured) {
  absl::StatusOr<Json> bound = BindRunArgs(
      FlowWithArgs(R"({"opts": {"default": {"deep": [1, true, null]}}})"), Json::object());
  ASSERT_THAT(bound, IsOk());
  EXPECT_EQ((*bound)["opts"], Json::parse(R"({"deep": [1, true, null]})"));
}

TEST(BindRunArgs, BoundArgs_InDeclarationOrder) {
  const v1::FlowSpec spec = FlowWithArgs(R"({"zeta": {"default": 1}, "alpha": {"default": 2}})");
  absl::StatusOr<Json> bound = BindRunArgs(spec, Json::parse(R"({"alpha": 5})"));
  ASSERT_THAT(bound, IsOk());
  EXPECT_THAT(KeysInOrder(*bound), ElementsAre("zeta", "alpha"));
}

TEST(BindRunArgs, RequiredArgMissing_ReportsArgPath) {
  const v1::FlowSpec spec =
      FlowWithArgs(R"({"dir": {"required": true, "description": "where to look"}})");
  absl::StatusOr<Json> bound = BindRunArgs(spec, Json::object());
  EXPECT_THAT(bound, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid run args")));
  EXPECT_THAT(FlowErrorLines(bound.status()),
              ElementsAre("args.dir: required arg 'dir' has no value and no default (where to "
                          "look)"));
}

TEST(BindRunArgs, RequiredArgWithDefault_Accepted) {
  absl::StatusOr<Json> bound =
      BindRunArgs(FlowWithArgs(R"({"dir": {"required": true, "default": "."}})"), Json());
  ASSERT_THAT(bound, IsOk());
  EXPECT_EQ((*bound)["dir"], ".");
}

TEST(BindRunArgs, UndeclaredArg_RejectedListingDeclared) {
  const v1::FlowSpec spec = FlowWithArgs(R"({"dir": {"default": "."}, "depth": {}})");
  absl::StatusOr<Json> bound = BindRunArgs(spec, Json::parse(R"({"drr": "src"})"));
  EXPECT_THAT(FlowErrorLines(bound.status()),
              ElementsAre("args.drr: unknown arg 'drr' (declared: dir, depth)"));
}

TEST(BindRunArgs, UndeclaredArgWithoutDeclarations_SaysNoArgs) {
  absl::StatusOr<Json> bound = BindRunArgs(FlowWithArgs("{}"), Json::parse(R"({"x": 1})"));
  EXPECT_THAT(FlowErrorLines(bound.status()),
              ElementsAre("args.x: unknown arg 'x' (this flow declares no args)"));
}

TEST(BindRunArgs, SeveralProblems_AllReported) {
  const v1::FlowSpec spec = FlowWithArgs(R"({"a": {"required": true}, "b": {"required": true}})");
  absl::StatusOr<Json> bound = BindRunArgs(spec, Json::parse(R"({"c": 1})"));
  EXPECT_THAT(FlowErrorLines(bound.status()),
              UnorderedElementsAre("args.a: required arg 'a' has no value and no default",
                                   "args.b: required arg 'b' has no value and no default",
                                   "args.c: unknown arg 'c' (declared: a, b)"));
}

TEST(BindRunArgs, ArgsNotAnObject_Rejected) {
  absl::StatusOr<Json> bound = BindRunArgs(FlowWithArgs("{}"), Json::array({"src"}));
  EXPECT_THAT(FlowErrorLines(bound.status()),
              ElementsAre("args: must be an object of arg name -> value (got an array)"));
}

// ---------------------------------------------------------------------------
// ParseCliArgs

TEST(ParseCliArgs, NoValues_EmptyObject) {
  absl::StatusOr<Json> args = ParseCliArgs({}, FlowWithArgs(R"({"dir": {}})"));
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(*args, Json::object());
}

TEST(ParseCliArgs, JsonObject_Parsed) {
  absl::StatusOr<Json> args =
      ParseCliArgs({R"({"dir": "packages/api", "depth": 3})"}, FlowWithArgs(R"({"dir": {}})"));
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(*args, Json::parse(R"({"dir": "packages/api", "depth": 3})"));
}

TEST(ParseCliArgs, MalformedJson_Rejected) {
  EXPECT_THAT(ParseCliArgs({R"({"dir": )"}, FlowWithArgs(R"({"dir": {}})")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("args look like JSON but are not a JSON object")));
}

TEST(ParseCliArgs, KeyValuePairs_ValuesStayStrings) {
  absl::StatusOr<Json> args =
      ParseCliArgs({"dir=src", "depth=3", "query=a=b"}, FlowWithArgs(R"({"dir": {}})"));
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(*args, Json::parse(R"({"dir": "src", "depth": "3", "query": "a=b"})"));
}

TEST(ParseCliArgs, SinglePositional_BindsFirstDeclaredArg) {
  const v1::FlowSpec spec = FlowWithArgs(R"({"zeta": {}, "alpha": {}})");
  absl::StatusOr<Json> args = ParseCliArgs({"src"}, spec);
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(*args, Json::parse(R"({"zeta": "src"})"));
}

TEST(ParseCliArgs, SinglePositionalFromYamlFlow_BindsFirstDeclaredArg) {
  absl::StatusOr<v1::FlowSpec> spec =
      LoadFlowText("name: f\nargs:\n  zeta: {}\n  alpha: {}\nphases:\n  - id: a\n    task: x\n");
  ASSERT_THAT(spec, IsOk());
  absl::StatusOr<Json> args = ParseCliArgs({"src"}, *spec);
  ASSERT_THAT(args, IsOk());
  EXPECT_EQ(*args, Json::parse(R"({"zeta": "src"})"));
}

TEST(ParseCliArgs, MixedForms_Rejected) {
  const v1::FlowSpec spec = FlowWithArgs(R"({"dir": {}, "depth": {}})");
  EXPECT_THAT(ParseCliArgs({"dir=src", "3"}, spec),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("args must be one JSON object, key=value pairs, or a single "
                                 "value for the first declared arg; got: dir=src 3")));
  EXPECT_THAT(ParseCliArgs({"src", "3"}, spec),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("got: src 3")));
}

TEST(ParseCliArgs, PositionalWithoutDeclaredArgs_Rejected) {
  EXPECT_THAT(ParseCliArgs({"src"}, FlowWithArgs("{}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("positional arg 'src' given, but flow 'f' declares no args")));
}

TEST(ParseCliArgs, ThenBind_UndeclaredKeyRejected) {
  const v1::FlowSpec spec = FlowWithArgs(R"({"dir": {"default": "."}})");
  absl::StatusOr<Json> args = ParseCliArgs({"dri=src"}, spec);
  ASSERT_THAT(args, IsOk());
  EXPECT_THAT(FlowErrorLines(BindRunArgs(spec, *args).status()),
              ElementsAre("args.dri: unknown arg 'dri' (declared: dir)"));
}

}  // namespace
}  // namespace taskboard::flow
