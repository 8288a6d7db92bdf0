#include "tools/cli/transition_lines.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "tools/cli/display_format.h"
#include "tools/cli/run_render.h"
#include "tools/cli/run_states.h"
#include "tools/cli/tasks_by_phase.h"

namespace taskboard::cli {
namespace {

// What one phase or task looks like in a line, whichever it is.
struct Subject {
  std::string id;
  absl::string_view icon;
  v1::TaskState state;
  std::string outcome;
  const google::protobuf::Timestamp* started_at;
  const google::protobuf::Timestamp* finished_at;
  const v1::Usage* usage;
  std::string items;  // fan-out progress, "40/40 items, 1 failed"
};

// "[+12.3s] ": `when` relative to the run's creation ("" without one).
std::string Stamp(const v1::Run& run, absl::Time when) {
  const std::optional<absl::Time> created = TimeFromProto(run.created_at());
  if (!created) return "";
  return absl::StrCat("[+", FormatElapsed(when - *created), "] ");
}

std::string Line(const v1::Run& run, const Subject& subject, absl::Time now) {
  const std::string state = TaskStateName(subject.state);
  std::vector<std::string> parts = {state};
  if (IsTaskEnded(subject.state)) {
    if (!subject.items.empty()) parts.push_back(subject.items);
    if (std::optional<absl::Duration> took =
            Elapsed(*subject.started_at, *subject.finished_at, now)) {
      parts.push_back(FormatElapsed(*took));
    }
    if (std::string usage = FormatUsage(*subject.usage); !usage.empty()) parts.push_back(usage);
  }
  // "skipped: why" / "failed: why": the state is already said.
  if (absl::string_view reason = absl::StripPrefix(subject.outcome, absl::StrCat(state, ": "));
      !reason.empty() && reason != state) {
    parts.push_back(std::string(reason));
  }
  const google::protobuf::Timestamp& when =
      IsTaskEnded(subject.state) ? *subject.finished_at : *subject.started_at;
  return absl::StrCat(Stamp(run, TimeFromProto(when).value_or(now)), subject.icon, " ", subject.id,
                      "  ", absl::StrJoin(parts, "  "));
}

Subject PhaseSubject(const v1::PhaseStatus& phase, const TasksByPhase& tasks) {
  Subject subject{phase.phase_id(),    PhaseIcon(phase),
                  phase.state(),       PhaseOutcome(phase, tasks.Of(phase.phase_id())),
                  &phase.started_at(), &phase.finished_at(),
                  &phase.usage(),      ""};
  const bool fans_out =
      phase.type() == v1::PHASE_TYPE_MAP || phase.type() == v1::PHASE_TYPE_PARALLEL;
  if (fans_out && phase.items_total() > 0) {
    subject.items = absl::StrCat(phase.items_done(), "/", phase.items_total(), " items");
    if (phase.items_failed() > 0)
      absl::StrAppend(&subject.items, ", ", phase.items_failed(), " failed");
  }
  return subject;
}

const std::string& ItemId(const v1::PhaseStatus& phase) { return phase.phase_id(); }
const std::string& ItemId(const v1::Task& task) { return task.task_id(); }

Subject TaskSubject(const v1::Task& task) {
  return {task.task_id(),     TaskStateIcon(task.state()), task.state(),  TaskOutcome(task),
          &task.started_at(), &task.finished_at(),         &task.usage(), ""};
}

}  // namespace

template <typename Item, typename SubjectOf>
void TransitionLog::See(const Item& item, const SubjectOf& subject_of, const v1::Run& run,
                        absl::Time now, std::vector<std::string>* lines) {
  const std::string& id = ItemId(item);
  auto it = seen_.find(id);
  const Seen was = it == seen_.end() ? Seen{} : it->second;
  const bool gate_appeared = item.has_gate() && !was.gate;
  if (item.state() == was.state && item.has_gate() == was.gate) return;
  const Seen now_seen{item.state(), item.has_gate()};
  if (it == seen_.end()) {
    seen_.emplace(id, now_seen);
  } else {
    it->second = now_seen;
  }
  if (lines == nullptr || (item.state() == was.state && !gate_appeared)) return;
  if (item.state() == v1::TASK_STATE_PENDING || item.state() == v1::TASK_STATE_UNSPECIFIED) {
    return;
  }
  lines->push_back(Line(run, subject_of(item), now));
}

void TransitionLog::Visit(const v1::Run& run, absl::Time now, const ChangedTasks& changed,
                          std::vector<std::string>* lines) {
  if (DrawnByPhases(run)) {
    // Indexed only for a phase that prints a line: indexing every task of a
    // 100,000-item map on each redraw was a fifth of a following CLI's time.
    std::optional<TasksByPhase> tasks;
    const auto subject_of = [&tasks, &run](const v1::PhaseStatus& p) {
      if (!tasks.has_value()) tasks.emplace(run);
      return PhaseSubject(p, *tasks);
    };
    for (const v1::PhaseStatus& phase : run.phases()) See(phase, subject_of, run, now, lines);
  } else {
    const auto subject_of = [](const v1::Task& t) { return TaskSubject(t); };
    if (changed.has_value()) {
      for (const v1::Task* task : *changed) See(*task, subject_of, run, now, lines);
    } else {
      for (const v1::Task& task : run.tasks()) See(task, subject_of, run, now, lines);
    }
  }
  if (!run.board_meta().empty() && run.board_meta() != board_meta_) {
    if (lines != nullptr) lines->push_back(absl::StrCat(Stamp(run, now), "· ", run.board_meta()));
    board_meta_ = run.board_meta();
  }
}

void TransitionLog::Remember(const v1::Run& run) {
  Visit(run, absl::InfinitePast(), std::nullopt, nullptr);
}

std::vector<std::string> TransitionLog::Lines(const v1::Run& run, absl::Time now,
                                              const ChangedTasks& changed) {
  std::vector<std::string> lines;
  Visit(run, now, changed, &lines);
  return lines;
}

std::vector<std::string> TransitionLines(const v1::Run& before, const v1::Run& after,
                                         absl::Time now) {
  TransitionLog log;
  log.Remember(before);
  return log.Lines(after, now);
}

}  // namespace taskboard::cli
