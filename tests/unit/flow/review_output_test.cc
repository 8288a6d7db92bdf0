#include "scheduler/flow/review_output.h"

#include <string>

#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::flow {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(ParseReview, EveryVerdict_IsRead) {
  absl::StatusOr<Review> review = ParseReview(R"(My review:
```json
{"assessments": [
   {"task_id": "a", "verdict": "accepted", "feedback": "good", "score": 0.9},
   {"task_id": "b", "verdict": "needs-revision", "feedback": "cite sources", "score": 0.4},
   {"task_id": "c", "verdict": "escalate", "feedback": "out of scope", "score": 0}],
 "needs_replanning": true,
 "overall_assessment": "mostly fine"}
```)");
  ASSERT_THAT(review, IsOk());
  ASSERT_EQ(review->assessments.size(), 3);
  EXPECT_EQ(review->assessments[0].task_id, "a");
  EXPECT_EQ(review->assessments[0].verdict, ReviewVerdict::kAccepted);
  EXPECT_EQ(review->assessments[0].feedback, "good");
  EXPECT_DOUBLE_EQ(review->assessments[0].score, 0.9);
  EXPECT_EQ(review->assessments[1].verdict, ReviewVerdict::kNeedsRevision);
  EXPECT_EQ(review->assessments[1].feedback, "cite sources");
  EXPECT_EQ(review->assessments[2].verdict, ReviewVerdict::kEscalate);
  EXPECT_TRUE(review->needs_replanning);
  EXPECT_EQ(review->overall_assessment, "mostly fine");
}

TEST(ParseReview, VerdictSpellings_AreAccepted) {
  absl::StatusOr<Review> review = ParseReview(R"({"assessments": [
      {"task_id": "a", "verdict": "ACCEPTED"},
      {"task_id": "b", "verdict": "needs_revision"},
      {"task_id": "c", "verdict": "Needs Revision"},
      {"task_id": "d", "verdict": "Escalate"}]})");
  ASSERT_THAT(review, IsOk());
  ASSERT_EQ(review->assessments.size(), 4);
  EXPECT_EQ(review->assessments[0].verdict, ReviewVerdict::kAccepted);
  EXPECT_EQ(review->assessments[1].verdict, ReviewVerdict::kNeedsRevision);
  EXPECT_EQ(review->assessments[2].verdict, ReviewVerdict::kNeedsRevision);
  EXPECT_EQ(review->assessments[3].verdict, ReviewVerdict::kEscalate);
  EXPECT_FALSE(review->needs_replanning);
  EXPECT_EQ(review->overall_assessment, "");
}

TEST(ParseReview, Score_IsClampedToUnitRange) {
  absl::StatusOr<Review> review = ParseReview(R"({"assessments": [
      {"task_id": "a", "verdict": "accepted", "score": 7},
      {"task_id": "b", "verdict": "accepted", "score": -0.5},
      {"task_id": "c", "verdict": "accepted"}]})");
  ASSERT_THAT(review, IsOk());
  EXPECT_DOUBLE_EQ(review->assessments[0].score, 1.0);
  EXPECT_DOUBLE_EQ(review->assessments[1].score, 0.0);
  EXPECT_DOUBLE_EQ(review->assessments[2].score, 0.0);
}

TEST(ParseReview, BareArray_IsTheAssessments) {
  absl::StatusOr<Review> review = ParseReview(R"([{"task_id": "a", "verdict": "accepted"}])");
  ASSERT_THAT(review, IsOk());
  ASSERT_EQ(review->assessments.size(), 1);
  EXPECT_EQ(review->assessments[0].task_id, "a");
}

TEST(ParseReview, EmptyAssessments_IsValid) {
  absl::StatusOr<Review> review = ParseReview(R"({"assessments": [], "needs_replanning": false})");
  ASSERT_THAT(review, IsOk());
  EXPECT_THAT(review->assessments, IsEmpty());
}

TEST(ParseReview, NoJson_Fails) {
  EXPECT_THAT(ParseReview("Everything looks good to me."),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("review is invalid"), HasSubstr("no JSON"))));
}

TEST(ParseReview, MissingAssessments_Fails) {
  EXPECT_THAT(ParseReview(R"({"overall_assessment": "fine"})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("assessments: is missing")));
}

TEST(ParseReview, MissingTaskId_Fails) {
  EXPECT_THAT(ParseReview(R"({"assessments": [{"verdict": "accepted"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("assessments[0].task_id: is missing; every assessment names the "
                                 "task it reviews")));
}

TEST(ParseReview, UnknownVerdict_FailsListingAllowedOnes) {
  EXPECT_THAT(ParseReview(R"({"assessments": [{"task_id": "a", "verdict": "maybe"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("assessments[0].verdict: unknown verdict 'maybe' (allowed: "
                                 "accepted, needs-revision, escalate)")));
}

TEST(ParseReview, MissingVerdict_Fails) {
  EXPECT_THAT(ParseReview(R"({"assessments": [{"task_id": "a"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("assessments[0].verdict: is missing (allowed: ")));
}

TEST(ParseReview, NonNumericScore_Fails) {
  EXPECT_THAT(ParseReview(R"({"assessments": [{"task_id": "a", "verdict": "accepted",
                                               "score": "high"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("assessments[0].score: must be a number from 0 to 1")));
}

TEST(ParseReview, TaskAssessedTwice_Fails) {
  EXPECT_THAT(ParseReview(R"({"assessments": [{"task_id": "a", "verdict": "accepted"},
                                              {"task_id": "a", "verdict": "escalate"}]})"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("task 'a' is assessed twice (also assessments[0])")));
}

TEST(ReviewVerdictName, NamesEachVerdict) {
  EXPECT_EQ(ReviewVerdictName(ReviewVerdict::kAccepted), "accepted");
  EXPECT_EQ(ReviewVerdictName(ReviewVerdict::kNeedsRevision), "needs-revision");
  EXPECT_EQ(ReviewVerdictName(ReviewVerdict::kEscalate), "escalate");
}

TEST(ReviewOutputSchema, IsAJsonObjectSchema) {
  absl::StatusOr<Json> schema = ParseJson(ReviewOutputSchema());
  ASSERT_THAT(schema, IsOk());
  EXPECT_EQ((*schema)["type"], "object");
  EXPECT_EQ((*schema)["properties"]["assessments"]["items"]["properties"]["verdict"]["enum"],
            Json::parse(R"(["accepted", "needs-revision", "escalate"])"));
}

}  // namespace
}  // namespace taskboard::flow
