#ifndef TASKBOARD_SCHEDULER_FLOW_REVIEW_OUTPUT_H_
#define TASKBOARD_SCHEDULER_FLOW_REVIEW_OUTPUT_H_

// Reads a supervisor reviewer's verdicts on one iteration's results
// (docs/semantics.md#supervisor). The reviewer's JSON decides which tasks are accepted,
// which go back to their workers with feedback and which stop, so a review
// that cannot be read is an error (the reviewer task is retried) rather than
// a guess.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::flow {

enum class ReviewVerdict { kAccepted, kNeedsRevision, kEscalate };

struct Assessment {
  std::string task_id;
  // Not accepted unless the reviewer says so.
  ReviewVerdict verdict = ReviewVerdict::kNeedsRevision;
  std::string feedback;
  double score = 0;  // In [0, 1].
};

struct Review {
  std::vector<Assessment> assessments;
  // The reviewer asks for the remaining work to be planned again (seed 004's
  // `needsReplanning`); false when it did not say.
  bool needs_replanning = false;
  // The reviewer's verdict on the iteration as a whole; "" when it gave none.
  std::string overall_assessment;
};

// Parses `{assessments: [{task_id, verdict, feedback, score}], needs_replanning,
// overall_assessment}` (or a bare array of assessments), wherever the JSON sits
// in the text (```json fences and prose around it are fine). Keys match in any
// spelling, so seed 004's `taskId`, `needsReplanning` and `overallAssessment`
// work too (KeySpelling::kAnySpelling). Verdicts are case-insensitive and `_` or
// a space may stand for `-` (`needs_revision`); `accept` and `escalated` are
// taken too. Scores are clamped to [0, 1] and may be quoted ("0.8");
// `needs_replanning` may be quoted ("true"). `feedback`, `score`,
// `needs_replanning` and `overall_assessment` may be absent or null. Other
// fields are ignored.
//
// Errors:
//   INVALID_ARGUMENT  no JSON; not that shape; an assessment without a
//                     non-empty string `task_id`; two assessments of one task;
//                     a missing or unknown verdict (the message lists the
//                     allowed ones); a `score` that is not a number;
//                     `needs_replanning` not true or false; fields of the
//                     wrong type. Every problem is listed with its path
//                     (`assessments[1].verdict`).
absl::StatusOr<Review> ParseReview(absl::string_view output);

// "accepted" | "needs-revision" | "escalate".
std::string ReviewVerdictName(ReviewVerdict verdict);

// JSON Schema (text) of the reviewer's output, for an LLM's `response_format`;
// strict-mode ready like the schemas in plan_output.h.
absl::string_view ReviewOutputSchema();

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_REVIEW_OUTPUT_H_
