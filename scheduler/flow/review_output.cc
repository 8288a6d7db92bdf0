#include "scheduler/flow/review_output.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_extract.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {
namespace {

constexpr absl::string_view kReviewShape =
    R"({"assessments": [{"task_id": string, "verdict": "accepted" | "needs-revision" | )"
    R"("escalate", "feedback": string, "score": 0..1}], "needs_replanning": boolean, )"
    R"("overall_assessment": string})";
constexpr absl::string_view kAllowedVerdicts = "allowed: accepted, needs-revision, escalate";

std::optional<ReviewVerdict> VerdictFromName(absl::string_view name) {
  std::string normalized = absl::AsciiStrToLower(absl::StripAsciiWhitespace(name));
  std::replace(normalized.begin(), normalized.end(), '_', '-');
  std::replace(normalized.begin(), normalized.end(), ' ', '-');
  if (normalized == "accepted" || normalized == "accept") return ReviewVerdict::kAccepted;
  if (normalized == "needs-revision") return ReviewVerdict::kNeedsRevision;
  if (normalized == "escalate" || normalized == "escalated") return ReviewVerdict::kEscalate;
  return std::nullopt;
}

// One assessment, or nullopt after recording why it cannot be read.
std::optional<Assessment> ReadAssessment(const Json& entry, size_t index, FlowErrorList* errors) {
  JsonReader reader(entry, IndexPath("assessments", index), errors, KeySpelling::kAnySpelling);
  if (!reader.valid()) return std::nullopt;
  const int errors_before = errors->size();
  Assessment assessment;

  std::optional<std::string> task_id = reader.String("task_id");
  if (!task_id.has_value() || absl::StripAsciiWhitespace(*task_id).empty()) {
    const Json* raw = reader.Raw("task_id");
    if (raw == nullptr || raw->is_null() || raw->is_string()) {
      errors->Add(reader.FieldPath("task_id"),
                  absl::StrCat(raw != nullptr && raw->is_string() ? "is empty" : "is missing",
                               "; every assessment names the task it reviews in `task_id` (or "
                               "`taskId`)"));
    }
  } else {
    assessment.task_id = *std::move(task_id);
  }

  std::optional<std::string> verdict = reader.String("verdict");
  std::optional<ReviewVerdict> parsed =
      verdict.has_value() ? VerdictFromName(*verdict) : std::nullopt;
  if (parsed.has_value()) {
    assessment.verdict = *parsed;
  } else if (verdict.has_value()) {
    errors->Add(reader.FieldPath("verdict"),
                absl::StrCat("unknown verdict '", *verdict, "' (", kAllowedVerdicts, ")"));
  } else if (const Json* raw = reader.Raw("verdict"); raw == nullptr || raw->is_null()) {
    errors->Add(reader.FieldPath("verdict"), absl::StrCat("is missing (", kAllowedVerdicts, ")"));
  }

  assessment.feedback = reader.String("feedback").value_or("");
  if (const Json* score = reader.Raw("score"); score != nullptr && !score->is_null()) {
    double number = 0;
    if (score->is_number()) {
      assessment.score = std::clamp(score->get<double>(), 0.0, 1.0);
    } else if (score->is_string() && absl::SimpleAtod(score->get<std::string>(), &number) &&
               std::isfinite(number)) {
      assessment.score = std::clamp(number, 0.0, 1.0);  // models quote numbers too
    } else {
      errors->Add(reader.FieldPath("score"), absl::StrCat("must be a number from 0 to 1 (got ",
                                                          DescribeJsonType(*score), ")"));
    }
  }
  if (errors->size() != errors_before) return std::nullopt;
  return assessment;
}

}  // namespace

absl::StatusOr<Review> ParseReview(absl::string_view output) {
  FlowErrorList errors;
  Review review;
  std::optional<Json> json = ExtractJson(output);
  const Json* assessments = nullptr;
  if (!json.has_value()) {
    errors.Add("", absl::StrCat(NoJsonInOutput(output), "; expected ", kReviewShape));
  } else if (json->is_array()) {
    assessments = &*json;
  } else if (json->is_object()) {
    JsonReader reader(*json, "", &errors, KeySpelling::kAnySpelling);
    assessments = reader.Raw("assessments");
    if (assessments == nullptr || assessments->is_null()) {
      errors.Add("assessments", absl::StrCat("is missing; expected ", kReviewShape));
      assessments = nullptr;
    } else if (!assessments->is_array()) {
      errors.Add("assessments",
                 absl::StrCat("must be an array (got ", DescribeJsonType(*assessments), ")"));
      assessments = nullptr;
    }
    if (const Json* replan = reader.Raw("needs_replanning");
        replan != nullptr && !replan->is_null()) {
      std::optional<bool> value = BoolOrQuotedBool(*replan);
      if (value.has_value()) {
        review.needs_replanning = *value;
      } else {
        errors.Add("needs_replanning",
                   absl::StrCat("must be true or false (got ", DescribeJsonType(*replan), ")"));
      }
    }
    review.overall_assessment = reader.String("overall_assessment").value_or("");
  } else {
    errors.Add("", absl::StrCat("expected ", kReviewShape, " (got ", DescribeJsonType(*json), ")"));
  }

  if (assessments != nullptr) {
    absl::flat_hash_map<std::string, size_t> index_of_task;
    for (size_t i = 0; i < assessments->size(); ++i) {
      std::optional<Assessment> assessment = ReadAssessment((*assessments)[i], i, &errors);
      if (!assessment.has_value()) continue;
      auto [first, inserted] = index_of_task.emplace(assessment->task_id, i);
      if (!inserted) {
        errors.Add(
            JoinPath(IndexPath("assessments", i), "task_id"),
            absl::StrCat("task '", assessment->task_id, "' is assessed twice (also assessments[",
                         first->second, "]); give one verdict per task"));
        continue;
      }
      review.assessments.push_back(*std::move(assessment));
    }
  }
  if (!errors.empty()) return errors.ToStatus("review is invalid");
  return review;
}

std::string ReviewVerdictName(ReviewVerdict verdict) {
  switch (verdict) {
    case ReviewVerdict::kAccepted:
      return "accepted";
    case ReviewVerdict::kNeedsRevision:
      return "needs-revision";
    case ReviewVerdict::kEscalate:
      return "escalate";
  }
  return "accepted";
}

absl::string_view ReviewOutputSchema() {
  return R"({
  "type": "object",
  "properties": {
    "assessments": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "task_id": {"type": "string", "description": "Id of the task this assesses."},
          "verdict": {"type": "string", "enum": ["accepted", "needs-revision", "escalate"]},
          "feedback": {"type": "string", "description": "What to fix, for needs-revision."},
          "score": {"type": "number", "description": "Quality from 0 (worst) to 1 (best)."}
        },
        "required": ["task_id", "verdict", "feedback", "score"],
        "additionalProperties": false
      }
    },
    "needs_replanning": {"type": "boolean"},
    "overall_assessment": {"type": "string"}
  },
  "required": ["assessments", "needs_replanning", "overall_assessment"],
  "additionalProperties": false
})";
}

}  // namespace taskboard::flow
