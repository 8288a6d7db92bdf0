#include "tools/cli/transition_lines.h"

#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "tools/cli/display_format.h"
#include "tools/cli/run_render.h"
#include "tools/cli/run_states.h"
#include "tools/cli/tasks_by_phase.h"

namespace taskboard::cli {
namespace {

bool IsFinal(v1::TaskState state) {
  return state == v1::TASK_STATE_COMPLETED || state == v1::TASK_STATE_FAILED ||
         state == v1::TASK_STATE_SKIPPED || state == v1::TASK_STATE_CANCELLED;
}

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
  if (IsFinal(subject.state)) {
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
      IsFinal(subject.state) ? *subject.finished_at : *subject.started_at;
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

Subject TaskSubject(const v1::Task& task) {
  return {task.task_id(),     TaskStateIcon(task.state()), task.state(),  TaskOutcome(task),
          &task.started_at(), &task.finished_at(),         &task.usage(), ""};
}

// Appends a line for each item of `after` whose state (or gate verdict)
// differs from the same id in `before`.
template <typename Item, typename IdOf, typename SubjectOf>
void AppendChanges(const google::protobuf::RepeatedPtrField<Item>& before,
                   const google::protobuf::RepeatedPtrField<Item>& after, const IdOf& id_of,
                   const SubjectOf& subject_of, const v1::Run& run, absl::Time now,
                   std::vector<std::string>* lines) {
  absl::flat_hash_map<std::string, const Item*> previous;
  for (const Item& item : before) previous[id_of(item)] = &item;
  for (const Item& item : after) {
    const auto it = previous.find(id_of(item));
    const v1::TaskState was = it == previous.end() ? v1::TASK_STATE_PENDING : it->second->state();
    const bool gate_appeared = item.has_gate() && (it == previous.end() || !it->second->has_gate());
    if (item.state() == was && !gate_appeared) continue;
    if (item.state() == v1::TASK_STATE_PENDING || item.state() == v1::TASK_STATE_UNSPECIFIED) {
      continue;
    }
    lines->push_back(Line(run, subject_of(item), now));
  }
}

}  // namespace

std::vector<std::string> TransitionLines(const v1::Run& before, const v1::Run& after,
                                         absl::Time now) {
  std::vector<std::string> lines;
  if (after.phases_size() > 0) {
    const TasksByPhase tasks(after);
    AppendChanges(
        before.phases(), after.phases(), [](const v1::PhaseStatus& p) { return p.phase_id(); },
        [&tasks](const v1::PhaseStatus& p) { return PhaseSubject(p, tasks); }, after, now, &lines);
  } else {
    AppendChanges(
        before.tasks(), after.tasks(), [](const v1::Task& t) { return t.task_id(); },
        [](const v1::Task& t) { return TaskSubject(t); }, after, now, &lines);
  }
  if (!after.board_meta().empty() && after.board_meta() != before.board_meta()) {
    lines.push_back(absl::StrCat(Stamp(after, now), "· ", after.board_meta()));
  }
  return lines;
}

}  // namespace taskboard::cli
