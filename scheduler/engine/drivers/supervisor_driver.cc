#include "scheduler/engine/drivers/supervisor_driver.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "scheduler/engine/drivers/pattern_resume.h"
#include "scheduler/engine/drivers/pattern_tasks.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/run_finish.h"
#include "scheduler/engine/state/task_lifecycle.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/plan_output.h"
#include "scheduler/flow/review_output.h"

namespace taskboard::engine {
namespace {

using pattern_phase::kActive;
using pattern_phase::kCompleted;
using pattern_phase::kPlanning;
using pattern_phase::kReviewing;
using pattern_phase::kRevising;
using pattern_phase::kSynthesizing;

std::string ReviewerId(int iteration) { return absl::StrCat("reviewer-", iteration); }
std::string RevisionId(int iteration) { return absl::StrCat("planner-", iteration); }

std::string HumanReviewId(const std::string& task_id, int iteration) {
  return absl::StrCat("review-", task_id, "-", iteration);
}

// `human`: with onEscalate: human, `review-*` are the human reviews' ids.
bool IsReservedId(absl::string_view id, bool human) {
  return id == PatternDriver::kPlannerId || id == PatternDriver::kSynthesizerId ||
         absl::StartsWith(id, "reviewer-") || absl::StartsWith(id, "planner-") ||
         (human && absl::StartsWith(id, "review-"));
}

// The choice a human review offers besides approve and reject.
constexpr char kReviseChoice[] = "revise";

}  // namespace

SupervisorDriver::SupervisorDriver(const v1::FlowSpec& spec, const RunLimits& limits)
    : PatternDriver(spec, limits,
                    {spec.supervisor().goal(), spec.supervisor().planner_agent(),
                     spec.supervisor().synthesizer_agent(), "worker"}),
      supervisor_(spec_.supervisor()) {
  max_concurrency_ = supervisor_.max_concurrency() > 0 ? supervisor_.max_concurrency() : 3;
  // An explicit value is checked at intake (--max-iterations); the default
  // stays within the cap too.
  max_iterations_ = supervisor_.max_iterations() > 0
                        ? supervisor_.max_iterations()
                        : std::min(3, std::max(1, limits.max_iterations));
  max_replans_ = supervisor_.has_max_replans() ? supervisor_.max_replans() : 1;
  human_ = supervisor_.on_escalate() == v1::ON_ESCALATE_HUMAN;
}

int SupervisorDriver::Replans(const RunState& run) const {
  int replans = 0;
  for (int round = 2; round <= Iterations(run) + 1; ++round) {
    const store::TaskRecord* planner = run.FindTask(RevisionId(round));
    replans += planner != nullptr && IsReplan(*planner);
  }
  return replans;
}

bool SupervisorDriver::IsReplan(const store::TaskRecord& planner) {
  absl::StatusOr<Json> input = ParseJson(planner.assignment().input_json());
  return input.ok() && input->is_object() && input->value("replan", false);
}

int SupervisorDriver::Iterations(const RunState& run) const {
  int iterations = 0;
  while (run.FindTask(ReviewerId(iterations + 1)) != nullptr) ++iterations;
  return iterations;
}

std::vector<const store::TaskRecord*> SupervisorDriver::Workers(const RunState& run) const {
  std::vector<const store::TaskRecord*> workers;
  for (const auto& [id, task] : run.tasks()) {
    if (task.task().role() == "worker") workers.push_back(&task);
  }
  // Plan order: item_index is a worker's position in the plan.
  std::sort(workers.begin(), workers.end(), [](const auto* a, const auto* b) {
    return a->task().item_index() < b->task().item_index();
  });
  return workers;
}

std::string SupervisorDriver::Status(const store::TaskRecord& worker) {
  const v1::Task& task = worker.task();
  if (task.state() == v1::TASK_STATE_FAILED || task.state() == v1::TASK_STATE_CANCELLED) {
    return "failed";
  }
  if (task.state() != v1::TASK_STATE_COMPLETED || task.reviews().empty()) return "in_progress";
  // A revised result waits for its own round's review.
  const v1::ReviewAssessment& last = task.reviews(task.reviews_size() - 1);
  if (last.iteration() < worker.review_round()) return "in_progress";
  const std::string& verdict = last.verdict();
  if (verdict == "accepted") return "completed";
  if (verdict == "escalate") return "escalated";
  return "needs-revision";
}

store::TaskRecord SupervisorDriver::NewWorker(RunState& run, const std::string& id,
                                              const std::string& goal,
                                              const store::TaskRecord* previous, int position,
                                              int64_t now_ms) const {
  std::string feedback;
  if (previous != nullptr && !previous->task().reviews().empty()) {
    feedback = previous->task().reviews(previous->task().reviews_size() - 1).feedback();
  }
  const bool retry = supervisor_.on_sub_task_error() == v1::SUB_TASK_ERROR_MODE_RETRY;
  store::TaskRecord worker = NewTask(
      run, id, "worker", supervisor_.worker_agent(),
      absl::StrCat("Overall goal: ", Goal(run), "\n\nYour task (", id, "): ", goal,
                   feedback.empty() ? ""
                                    : absl::StrCat("\n\nA reviewer asked for changes to your "
                                                   "previous result: ",
                                                   feedback)),
      retry ? max_attempts_ : 1, now_ms);
  worker.mutable_task()->set_title(goal);
  Json input = {{"id", id}, {"goal", goal}};
  if (!feedback.empty()) input["feedback"] = feedback;
  worker.mutable_assignment()->set_input_json(DumpJson(input));
  if (previous != nullptr) {
    *worker.mutable_task()->mutable_reviews() = previous->task().reviews();
    // The reviewer sent the result back (or escalated it): that attempt
    // ended, and this record runs the task again.
    CarryAttempts(*previous, worker, attempt_end::kRejected,
                  feedback.empty() ? "sent back by the reviewer" : feedback, now_ms);
  }
  worker.set_review_round(previous == nullptr ? 1 : Iterations(run) + 1);
  worker.mutable_task()->set_item_index(previous == nullptr ? position
                                                            : previous->task().item_index());
  return worker;
}

std::string SupervisorDriver::PlannerPrompt(const std::string& goal) const {
  return absl::StrCat("Goal: ", goal,
                      "\n\nSplit the goal into tasks that workers can do independently and at the "
                      "same time. Answer with JSON {\"tasks\": [{\"id\", \"goal\"}]}.");
}

int SupervisorDriver::Iteration(const RunState& run) const { return std::max(1, Iterations(run)); }

void SupervisorDriver::OnPlan(RunState& run, std::vector<flow::PlannedTask> plan, int64_t now_ms) {
  StartWorkers(run, std::move(plan), now_ms);
}

void SupervisorDriver::BeforeRewind(RunState& run, int64_t now_ms) {
  // The run ended without them: what the reviewer sent back or escalated
  // runs again, with its last feedback.
  for (const store::TaskRecord* worker : Workers(run)) {
    const std::string status = Status(*worker);
    if (status != "needs-revision" && status != "escalated") continue;
    const store::TaskRecord previous = *worker;
    run.PutTask(
        NewWorker(run, previous.task().task_id(), previous.task().title(), &previous, 0, now_ms));
  }
}

bool SupervisorDriver::DrainWork(RunState& run, int64_t now_ms) {
  if (supervisor_.on_sub_task_error() == v1::SUB_TASK_ERROR_MODE_FAIL) {
    for (const store::TaskRecord* worker : Workers(run)) {
      if (worker->task().state() == v1::TASK_STATE_FAILED) {
        FinishRun(run, v1::RUN_STATUS_FAILED, Report(run),
                  absl::StrCat("worker task '", worker->task().task_id(),
                               "' failed: ", worker->task().error()),
                  now_ms);
        return false;
      }
    }
  }
  return DrainWorkers(run, now_ms);
}

const store::TaskRecord* SupervisorDriver::Decider(const RunState& run,
                                                   const std::string& phase) const {
  if (phase == kReviewing) return run.FindTask(ReviewerId(Iterations(run)));
  if (phase == kRevising || phase == pattern_phase::kReplanning) {
    return run.FindTask(RevisionId(Iterations(run) + 1));
  }
  if (phase == pattern_phase::kHumanReview) {
    // The run waits for every review of the round; one that failed (its
    // onTimeout: fail) fails the run at once.
    const store::TaskRecord* waiting = nullptr;
    const store::TaskRecord* decided = nullptr;
    for (const store::TaskRecord* review : HumanReviews(run)) {
      if (review->task().state() == v1::TASK_STATE_FAILED) return review;
      if (!IsTerminal(review->task().state())) {
        if (waiting == nullptr) waiting = review;
      } else if (decided == nullptr) {
        decided = review;
      }
    }
    return waiting != nullptr ? waiting : decided;
  }
  return nullptr;
}

std::vector<const store::TaskRecord*> SupervisorDriver::HumanReviews(const RunState& run) const {
  std::vector<const store::TaskRecord*> reviews;
  const int iteration = Iterations(run);
  for (const store::TaskRecord* worker : Workers(run)) {
    const store::TaskRecord* review =
        run.FindTask(HumanReviewId(worker->task().task_id(), iteration));
    if (review != nullptr) reviews.push_back(review);
  }
  return reviews;
}

bool SupervisorDriver::AskHumanReviews(RunState& run, int64_t now_ms) {
  const int iteration = Iterations(run);
  std::vector<std::string> asked;
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) != "escalated") continue;
    const v1::Task& work = worker->task();
    const v1::ReviewAssessment& last = work.reviews(work.reviews_size() - 1);
    if (last.iteration() != iteration) continue;
    const std::string id = HumanReviewId(work.task_id(), iteration);
    store::TaskRecord review = NewTask(run, id, kApprovalRole, "", "", /*max_attempts=*/1, now_ms);
    review.mutable_task()->set_title(absl::StrCat("review escalated task ", work.task_id()));
    review.mutable_assignment()->set_input_json(
        DumpJson(Json{{"human_review", {{"task_id", work.task_id()}, {"iteration", iteration}}}}));
    const Json result = flow::StepResultJson(work.output());
    DescribeApproval(
        review, supervisor_.human_review(), {kReviseChoice},
        absl::StrCat("Review the escalated task '", work.task_id(), "': ", work.title(),
                     "\n\nOverall goal: ", Goal(run), "\n\nIts result:\n",
                     result.is_string() ? result.get<std::string>() : result.dump(2),
                     "\n\nThe reviewer escalated it: ",
                     last.feedback().empty() ? "(no feedback given)" : last.feedback(),
                     "\n\nApprove to accept the result, reject to keep it escalated (the run "
                     "ends blocked), or choose `revise` with a comment: the feedback its next "
                     "attempt gets."));
    StartWaiting(review, supervisor_.human_review().timeout_seconds(), now_ms);
    run.PutTask(std::move(review));
    asked.push_back(work.task_id());
  }
  if (asked.empty()) return false;
  SetPatternPhase(run, pattern_phase::kHumanReview, iteration,
                  absl::StrCat("a person reviews ", absl::StrJoin(asked, ", ")));
  return true;
}

void SupervisorDriver::ApplyHumanReviews(RunState& run, int64_t now_ms) {
  const int iteration = Iterations(run);
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) != "escalated") continue;
    const std::string id = worker->task().task_id();
    const store::TaskRecord* review = run.FindTask(HumanReviewId(id, iteration));
    if (review == nullptr || review->task().state() != v1::TASK_STATE_COMPLETED) continue;
    const v1::ApprovalDecision& decision = review->task().approval().decision();
    if (decision.decision() == "reject") continue;  // stays escalated, reported
    const bool revise = decision.decision() == kReviseChoice;
    v1::Task& task = *run.MutableTask(id).mutable_task();
    const float score = task.reviews(task.reviews_size() - 1).score();
    v1::ReviewAssessment& entry = *task.add_reviews();
    entry.set_iteration(iteration);
    entry.set_score(score);
    if (revise) {
      // The person's comment is the feedback the next attempt gets.
      entry.set_verdict("needs-revision");
      entry.set_feedback(decision.comment().empty()
                             ? absl::StrCat(decision.decided_by(), " asked for a revision")
                             : decision.comment());
    } else {
      entry.set_verdict("accepted");
      entry.set_feedback(absl::StrCat("approved by ", decision.decided_by(),
                                      decision.comment().empty() ? "" : ": ", decision.comment()));
    }
  }
  const store::TaskRecord* reviewer = run.FindTask(ReviewerId(iteration));
  absl::StatusOr<flow::Review> review = flow::ParseReview(reviewer->task().output());
  ContinueAfterReview(run, review.ok() ? *review : flow::Review(), now_ms);
}

void SupervisorDriver::OnDecision(RunState& run, const store::TaskRecord& decider, int64_t now_ms) {
  if (decider.task().role() == "reviewer") return ApplyReview(run, decider, now_ms);
  if (IsApprovalTask(decider)) return ApplyHumanReviews(run, now_ms);
  ApplyRevision(run, decider, now_ms);
}

bool SupervisorDriver::ReadyToSynthesize(const RunState& run) const {
  // Escalated work waits for a person; the synthesizer runs once it is
  // settled (on resume).
  return Escalated(run).empty();
}

std::string SupervisorDriver::SynthesizerPrompt(const RunState& run) const {
  Json accepted = Json::array();
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) != "completed") continue;
    accepted.push_back({{"id", worker->task().task_id()},
                        {"goal", worker->task().title()},
                        {"result", flow::StepResultJson(worker->task().output())}});
  }
  return absl::StrCat("Goal: ", Goal(run),
                      "\n\nWrite the final result from these accepted results:\n",
                      accepted.dump(2));
}

void SupervisorDriver::StartWorkers(RunState& run, std::vector<flow::PlannedTask> plan,
                                    int64_t now_ms) {
  int position = 0;
  for (flow::PlannedTask& task : plan) {
    if (IsReservedId(task.id, human_)) task.id += "-task";
    run.PutTask(NewWorker(run, task.id, task.goal, nullptr, position++, now_ms));
  }
  SetPatternPhase(run, kActive, 1, absl::StrCat(plan.size(), " tasks"));
}

bool SupervisorDriver::DrainWorkers(RunState& run, int64_t now_ms) {
  std::vector<const store::TaskRecord*> workers = Workers(run);
  int in_flight = 0;
  for (const store::TaskRecord* worker : workers) in_flight += IsInFlight(worker->task().state());
  std::sort(workers.begin(), workers.end(),
            [](const auto* a, const auto* b) { return a->order() < b->order(); });
  for (const store::TaskRecord* worker : workers) {
    if (worker->task().state() != v1::TASK_STATE_PENDING || in_flight >= max_concurrency_) {
      continue;
    }
    MarkReady(run.MutableTask(worker->task().task_id()), now_ms);
    ++in_flight;
  }
  return in_flight > 0;
}

void SupervisorDriver::AfterWork(RunState& run, int64_t now_ms) {
  // This round's results: completed workers without a verdict yet.
  Json results = Json::array();
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) != "in_progress" || worker->task().state() != v1::TASK_STATE_COMPLETED) {
      continue;
    }
    results.push_back({{"task_id", worker->task().task_id()},
                       {"goal", worker->task().title()},
                       {"result", flow::StepResultJson(worker->task().output())}});
  }
  if (results.empty()) return Conclude(run, now_ms);
  const int iteration = Iterations(run) + 1;
  std::string criteria;
  for (const std::string& criterion : supervisor_.review_criteria()) {
    absl::StrAppend(&criteria, "\n- ", criterion);
  }
  store::TaskRecord reviewer = NewTask(
      run, ReviewerId(iteration), "reviewer", supervisor_.reviewer_agent(),
      absl::StrCat("Goal: ", Goal(run),
                   criteria.empty() ? "" : absl::StrCat("\n\nReview criteria:", criteria),
                   "\n\nReview each result (round ", iteration, " of ", max_iterations_, "):\n",
                   results.dump(2),
                   "\n\nAnswer with JSON {\"assessments\": [{\"task_id\", \"verdict\": "
                   "\"accepted\"|\"needs-revision\"|\"escalate\", \"feedback\", \"score\"}], "
                   "\"needs_replanning\", \"overall_assessment\"}."),
      max_attempts_, now_ms);
  reviewer.mutable_task()->set_title(absl::StrCat("review round ", iteration));
  reviewer.mutable_assignment()->set_output_schema_json(std::string(flow::ReviewOutputSchema()));
  MarkReady(reviewer, now_ms);
  run.PutTask(std::move(reviewer));
  SetPatternPhase(run, kReviewing, iteration, absl::StrCat(results.size(), " results"));
}

void SupervisorDriver::ApplyReview(RunState& run, const store::TaskRecord& reviewer,
                                   int64_t now_ms) {
  const std::string reviewer_id = reviewer.task().task_id();
  absl::StatusOr<flow::Review> review = flow::ParseReview(reviewer.task().output());
  if (!review.ok()) {
    if (FailAndMaybeRetry(run.MutableTask(reviewer_id),
                          absl::StrCat("the review is invalid: ", review.status().message()),
                          now_ms)) {
      FailPatternRun(run, *run.FindTask(reviewer_id), Report(run), now_ms);
    }
    return;
  }
  const int iteration = Iterations(run);
  std::map<std::string, const flow::Assessment*> by_task;
  for (const flow::Assessment& assessment : review->assessments) {
    by_task[assessment.task_id] = &assessment;
  }
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) != "in_progress" || worker->task().state() != v1::TASK_STATE_COMPLETED) {
      continue;
    }
    const std::string id = worker->task().task_id();
    v1::ReviewAssessment& entry = *run.MutableTask(id).mutable_task()->add_reviews();
    entry.set_iteration(iteration);
    auto found = by_task.find(id);
    if (found == by_task.end()) {
      entry.set_verdict("needs-revision");
      entry.set_feedback("the reviewer gave no verdict for this task");
    } else {
      entry.set_verdict(flow::ReviewVerdictName(found->second->verdict));
      entry.set_feedback(found->second->feedback);
      entry.set_score(found->second->score);
    }
  }
  // onEscalate: human: a person reviews the escalations before the round
  // goes on.
  if (human_ && AskHumanReviews(run, now_ms)) return;
  ContinueAfterReview(run, *review, now_ms);
}

void SupervisorDriver::ContinueAfterReview(RunState& run, const flow::Review& review,
                                           int64_t now_ms) {
  const int iteration = Iterations(run);
  std::vector<std::string> revise;
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) != "needs-revision") continue;
    const v1::Task& task = worker->task();
    if (task.reviews(task.reviews_size() - 1).iteration() == iteration) {
      revise.push_back(task.task_id());
    }
  }
  // `needs_replanning` sends the remaining work back to be planned again
  // (new tasks may join), at most max_replans times; verdicts alone only
  // revise the goals of the tasks sent back.
  const bool replan = review.needs_replanning && Replans(run) < max_replans_;
  if ((revise.empty() && !replan) || iteration >= max_iterations_) return Conclude(run, now_ms);
  Json items = Json::array();
  for (const std::string& id : revise) {
    const v1::Task& task = run.FindTask(id)->task();
    items.push_back({{"id", id},
                     {"goal", task.title()},
                     {"feedback", task.reviews(task.reviews_size() - 1).feedback()}});
  }
  std::string prompt;
  if (replan) {
    Json accepted = Json::array();
    for (const store::TaskRecord* worker : Workers(run)) {
      if (Status(*worker) != "completed") continue;
      accepted.push_back({{"id", worker->task().task_id()}, {"goal", worker->task().title()}});
    }
    prompt = absl::StrCat(
        "Goal: ", Goal(run), "\n\nThe reviewer says the plan needs rework: ",
        review.overall_assessment.empty() ? "(no overall assessment given)"
                                          : review.overall_assessment,
        "\n\nAccepted so far (keep them out of your answer):\n", accepted.dump(2),
        "\n\nSent back with feedback:\n", items.dump(2),
        "\n\nPlan the work that remains: the tasks sent back under their ids with revised "
        "goals, and new tasks under new ids for what the plan missed. Answer with JSON "
        "{\"tasks\": [{\"id\", \"goal\"}]}.");
  } else {
    prompt = absl::StrCat("Goal: ", Goal(run),
                          "\n\nA reviewer sent these tasks back with feedback:\n", items.dump(2),
                          "\n\nRewrite their goals so the next attempt addresses the feedback. "
                          "Answer with JSON {\"tasks\": [{\"id\", \"goal\"}]} using the same ids.");
  }
  store::TaskRecord planner =
      NewTask(run, RevisionId(iteration + 1), "planner", supervisor_.planner_agent(),
              std::move(prompt), max_attempts_, now_ms);
  planner.mutable_task()->set_title(replan ? "replan the remaining work"
                                           : absl::StrCat("revise ", revise.size(), " tasks"));
  planner.mutable_assignment()->set_output_schema_json(std::string(flow::PlanOutputSchema()));
  Json input = {{"goal", Goal(run)}, {"revise", items}};
  if (replan) input["replan"] = true;
  planner.mutable_assignment()->set_input_json(DumpJson(input));
  MarkReady(planner, now_ms);
  run.PutTask(std::move(planner));
  SetPatternPhase(run, replan ? pattern_phase::kReplanning : kRevising, iteration + 1,
                  replan ? review.overall_assessment : absl::StrJoin(revise, ", "));
}

void SupervisorDriver::ApplyRevision(RunState& run, const store::TaskRecord& planner,
                                     int64_t now_ms) {
  absl::StatusOr<std::vector<flow::PlannedTask>> revised =
      flow::ParseReplan(planner.task().output());
  std::map<std::string, std::string> goals;
  if (revised.ok()) {
    for (const flow::PlannedTask& task : *revised) goals[task.id] = task.goal;
  }
  // A revision that does not parse still re-runs the tasks, with the
  // reviewer's feedback and their old goals.
  int rerun = 0;
  std::vector<const store::TaskRecord*> workers = Workers(run);
  for (const store::TaskRecord* worker : workers) {
    const std::string id = worker->task().task_id();
    if (Status(*worker) != "needs-revision") continue;
    auto goal = goals.find(id);
    const store::TaskRecord previous = *worker;
    run.PutTask(NewWorker(run, id, goal != goals.end() ? goal->second : previous.task().title(),
                          &previous, 0, now_ms));
    ++rerun;
  }
  int added = 0;
  if (IsReplan(planner) && revised.ok()) {
    // New work the replan found; tasks already in the plan keep their ids.
    std::vector<flow::PlannedTask> fresh;
    for (flow::PlannedTask& task : *revised) {
      if (IsReservedId(task.id, human_)) task.id += "-task";
      if (run.FindTask(task.id) == nullptr) fresh.push_back(std::move(task));
    }
    if (CheckPlanSize(workers.size() + fresh.size(), limits_).ok()) {
      int position = static_cast<int>(workers.size());
      for (const flow::PlannedTask& task : fresh) {
        store::TaskRecord worker = NewWorker(run, task.id, task.goal, nullptr, position++, now_ms);
        worker.set_review_round(Iterations(run) + 1);
        run.PutTask(std::move(worker));
        ++added;
      }
    }
  }
  SetPatternPhase(run, kActive, Iterations(run) + 1,
                  added > 0 ? absl::StrCat(rerun, " tasks revised, ", added, " added")
                            : absl::StrCat(rerun, " tasks revised"));
}

std::string SupervisorDriver::Report(const RunState& run) const {
  Json tasks = Json::array();
  int accepted = 0;
  std::vector<const store::TaskRecord*> workers = Workers(run);
  for (const store::TaskRecord* worker : workers) {
    const v1::Task& task = worker->task();
    const std::string status = Status(*worker);
    Json entry = {{"id", task.task_id()}, {"goal", task.title()}, {"status", status}};
    if (status == "completed") {
      ++accepted;
      entry["result"] = flow::StepResultJson(task.output());  // JSON stays JSON
    } else if (status == "failed") {
      entry["error"] = task.error();
    }
    if (!task.reviews().empty()) {
      const v1::ReviewAssessment& last = task.reviews(task.reviews_size() - 1);
      entry["feedback"] = last.feedback();
      entry["score"] = last.score();
    }
    tasks.push_back(std::move(entry));
  }
  return DumpJson(Json{{"goal", Goal(run)},
                       {"tasks", std::move(tasks)},
                       {"accepted", accepted},
                       {"total", workers.size()}});
}

std::vector<std::string> SupervisorDriver::Escalated(const RunState& run) const {
  std::vector<std::string> escalated;
  for (const store::TaskRecord* worker : Workers(run)) {
    if (Status(*worker) == "escalated") escalated.push_back(worker->task().task_id());
  }
  return escalated;
}

void SupervisorDriver::Finish(RunState& run, int64_t now_ms) {
  std::vector<const store::TaskRecord*> workers = Workers(run);
  int accepted = 0;
  for (const store::TaskRecord* worker : workers) accepted += Status(*worker) == "completed";
  std::string output = SynthesizedOutput(run);
  if (output.empty()) output = Report(run);
  const bool ok = workers.empty() || accepted > 0;
  SetPatternPhase(run, kCompleted, std::max(1, Iterations(run)),
                  absl::StrCat(accepted, " of ", workers.size(), " tasks accepted"));
  if (std::vector<std::string> escalated = Escalated(run); !escalated.empty()) {
    // Escalation asks for a person (decision 79): the run stops blocked with
    // what it has; resuming it re-runs the escalated tasks with the feedback.
    std::string reason =
        absl::StrCat("the reviewer escalated ", absl::StrJoin(escalated, ", "), ": ",
                     run.FindTask(escalated.front())->task().reviews().rbegin()->feedback());
    run.MutableRecord().set_blocked_reason(reason);
    return FinishRun(run, v1::RUN_STATUS_BLOCKED, std::move(output),
                     absl::StrCat(reason, " (taskboard resume runs them again)"), now_ms);
  }
  FinishRun(run, ok ? v1::RUN_STATUS_COMPLETED : v1::RUN_STATUS_FAILED, std::move(output),
            ok ? "" : "no task was accepted", now_ms);
}

std::unique_ptr<Driver> MakeSupervisorDriver(const v1::FlowSpec& spec, const RunLimits& limits) {
  return std::make_unique<SupervisorDriver>(spec, limits);
}

}  // namespace taskboard::engine
