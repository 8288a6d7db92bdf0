// `{steps.ID.output.NAME}`: an approval step's form value, at interpolation
// time (the validator checks the names too; these are the runtime errors a
// stored or resumed spec could still meet).

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/flow/interpolation.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

// The interpolated text, or the error's message after "error: ".
std::string Text(absl::string_view tmpl, const InterpolationContext& ctx) {
  absl::StatusOr<std::string> text = Interpolate(tmpl, ctx);
  return text.ok() ? *text : "error: " + std::string(text.status().message());
}

InterpolationContext WithApproval() {
  InterpolationContext ctx;
  StepValue approval;
  approval.output = R"({"decision":"approve","values":{"version":"1.2"}})";
  approval.json = Json::parse(approval.output);
  approval.form_fields = std::vector<std::string>{"version", "note"};
  ctx.steps.emplace("ok", std::move(approval));
  StepValue agent;
  agent.output = R"({"x": 1})";
  agent.json = Json::parse(agent.output);
  ctx.steps.emplace("build", std::move(agent));
  return ctx;
}

TEST(FormValueInterpolation, NamedField_IsTheValue_EmptyWhenNotGiven) {
  EXPECT_EQ(Text("v={steps.ok.output.version} n=[{steps.ok.output.note}]", WithApproval()),
            "v=1.2 n=[]");
  EXPECT_EQ(Text("{steps.ok.json.values.version}", WithApproval()), "1.2");
}

TEST(FormValueInterpolation, UnknownField_NamesTheFields) {
  EXPECT_THAT(Interpolate("{steps.ok.output.vers}", WithApproval()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("approval 'ok' has no form field 'vers' (its fields: version, "
                                 "note)")));
}

TEST(FormValueInterpolation, NotAnApproval_PointsToJson) {
  EXPECT_THAT(Interpolate("{steps.build.output.x}", WithApproval()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("phase 'build' is not one: read its JSON output with "
                                 "{steps.build.json.x}")));
}

TEST(FormValueInterpolation, SkippedOptionalApproval_IsEmpty) {
  InterpolationContext ctx = WithApproval();
  ctx.steps["ok"].state = StepValue::State::kSkipped;
  ctx.steps["ok"].optional = true;
  EXPECT_EQ(Text("[{steps.ok.output.version}]", ctx), "[]");
}

}  // namespace
}  // namespace taskboard::flow
