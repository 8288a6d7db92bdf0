#include "scheduler/engine/drivers/taskflow_driver.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/engine/state/approval_task.h"
#include "scheduler/engine/state/attempt_history.h"
#include "scheduler/engine/state/child_runs.h"
#include "scheduler/engine/state/run_finish.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/flow/approval_phase.h"
#include "scheduler/flow/approval_routes.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/fanout_output.h"
#include "scheduler/flow/gate_verdict.h"
#include "scheduler/flow/input_hash.h"
#include "scheduler/flow/json_extract.h"
#include "scheduler/flow/kinds/board_kind.h"
#include "scheduler/flow/map_items.h"
#include "scheduler/flow/phase_graph.h"
#include "scheduler/flow/phase_pattern.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::engine {
namespace {

constexpr int kDefaultTaskflowConcurrency = 8;

std::string FirstLine(absl::string_view text, size_t max_chars = 200) {
  size_t end = text.find('\n');
  absl::string_view line = text.substr(0, end);
  if (line.size() > max_chars) return absl::StrCat(line.substr(0, max_chars), "…");
  return std::string(line);
}

bool PhaseTerminal(const store::PhaseRecord& phase) { return IsTerminal(phase.status().state()); }

// What StartPhase hashes for a board task, from the task it made: its agent
// and the prompt it was sent (a board task names no model or tools).
std::string BoardTaskInputHash(const store::TaskRecord& task) {
  flow::PhaseInputs inputs;
  inputs.agent = task.task().agent();
  inputs.tasks.push_back(task.assignment().prompt());
  return flow::PhaseInputHash(inputs);
}

}  // namespace

TaskflowDriver::TaskflowDriver(const v1::FlowSpec& spec, const RunLimits& limits)
    : limits_(limits) {
  board_ = spec.has_board();
  if (board_) {
    board_spec_ = spec.board();
    flow_.set_concurrency(board_spec_.concurrency());
  } else {
    // Child runs of pattern phases inherit the flow's settings, not its
    // phases: one copy of the spec, its phases moved out of it.
    parent_ = spec;
    flow_.Swap(parent_.mutable_taskflow());
    parent_.clear_kind();
  }
  concurrency_ = flow_.concurrency();
  if (!board_ && concurrency_ <= 0) concurrency_ = kDefaultTaskflowConcurrency;
  default_max_attempts_ = std::max(1, spec.max_attempts_per_task());
  default_timeout_seconds_ = spec.timeout_seconds();
  const int phase_count = PhaseCount();
  index_of_.reserve(phase_count);
  for (int i = 0; i < phase_count; ++i) index_of_.insert_or_assign(PhaseIdAt(i), i);
  layers_.assign(phase_count, 0);
  std::vector<std::vector<std::string>> layers = flow::TopologicalLayers(Nodes());
  for (size_t layer = 0; layer < layers.size(); ++layer) {
    for (const std::string& id : layers[layer]) {
      layers_[index_of_.at(id)] = static_cast<int>(layer);
    }
  }
  // A board's last task is its final phase, as a taskflow's last phase is
  // unless one says `final`.
  if (!board_) {
    final_phase_ = flow::FinalPhaseId(flow_);
  } else if (phase_count > 0) {
    final_phase_ = PhaseIdAt(phase_count - 1);
  }
  for (int i = 0; i < phase_count; ++i) {
    if (!flow::RoutesRejection(PhaseAt(i))) continue;
    const auto& route = PhaseAt(i).approval().on_reject();
    routes_[i].insert(route.begin(), route.end());
  }
  // A board's phases are its tasks, in order: phase i is task i.
  bool prioritized = false;
  if (board_) {
    priority_.reserve(phase_count);
    for (const v1::BoardTask& task : board_spec_.tasks()) {
      priority_.push_back(task.priority());
      prioritized = prioritized || task.priority() != 0;
    }
  }
  start_order_.reserve(phase_count);
  for (int i = 0; i < phase_count; ++i) start_order_.push_back(i);
  if (prioritized) {
    std::stable_sort(start_order_.begin(), start_order_.end(),
                     [&](int a, int b) { return priority_[a] > priority_[b]; });
  }
  pending_ = start_order_;
  progress_.resize(phase_count);
}

std::string TaskflowDriver::ItemTaskId(absl::string_view phase_id, int index) {
  return absl::StrCat(phase_id, "[", index, "]");
}

const v1::Phase& TaskflowDriver::PhaseAt(int index) const {
  if (!board_) return flow_.phases(index);
  static const v1::Phase* const kBoardTask = [] {
    auto* phase = new v1::Phase();
    phase->set_type(v1::PHASE_TYPE_AGENT);
    return phase;
  }();
  return *kBoardTask;
}

int TaskflowDriver::PhaseCount() const {
  return board_ ? board_spec_.tasks_size() : flow_.phases_size();
}

const std::string& TaskflowDriver::PhaseIdAt(int index) const {
  return board_ ? board_spec_.tasks(index).id() : flow_.phases(index).id();
}

std::vector<std::string> TaskflowDriver::DepsAt(int index) const {
  if (!board_) return flow::PhaseDependencies(flow_.phases(index));
  const auto& deps = board_spec_.tasks(index).deps();
  return {deps.begin(), deps.end()};
}

bool TaskflowDriver::OptionalAt(int index) const {
  return board_ ? board_spec_.tasks(index).is_optional() : flow_.phases(index).is_optional();
}

v1::Phase TaskflowDriver::StartablePhase(int index) const {
  return board_ ? flow::BoardTaskAsPhase(board_spec_.tasks(index)) : flow_.phases(index);
}

void TaskflowDriver::ReleaseStarted(int index) {
  if (!board_) return;
  // Released, not cleared: a cleared string field keeps its allocation.
  v1::BoardTask& task = *board_spec_.mutable_tasks(index);
  delete task.release_agent();
  delete task.release_task();
}

absl::flat_hash_set<std::string> TaskflowDriver::UpstreamOf(int index) const {
  // Walked from the phase, not from a graph of the whole flow: a board whose
  // every task interpolates built its 10,000 nodes once per task started.
  absl::flat_hash_set<std::string> upstream;
  std::vector<int> frontier = {index};
  while (!frontier.empty()) {
    const int at = frontier.back();
    frontier.pop_back();
    for (std::string& dep : DepsAt(at)) {
      auto d = index_of_.find(dep);
      if (d == index_of_.end()) continue;
      const int dep_index = d->second;
      if (upstream.insert(std::move(dep)).second) frontier.push_back(dep_index);
    }
  }
  upstream.erase(PhaseIdAt(index));
  return upstream;
}

std::vector<flow::DagNode> TaskflowDriver::Nodes() const {
  if (!board_) return flow::PhaseNodes(flow_);
  std::vector<flow::DagNode> nodes;
  nodes.reserve(board_spec_.tasks_size());
  for (int i = 0; i < board_spec_.tasks_size(); ++i) nodes.push_back({PhaseIdAt(i), DepsAt(i)});
  return nodes;
}

bool TaskflowDriver::IsFanOut(const v1::Phase& phase) const {
  return phase.type() == v1::PHASE_TYPE_MAP || phase.type() == v1::PHASE_TYPE_PARALLEL;
}

std::vector<std::string> TaskflowDriver::TaskIdsOf(int index, int items_total) const {
  if (!IsFanOut(PhaseAt(index))) return {PhaseIdAt(index)};
  std::vector<std::string> ids;
  ids.reserve(items_total);
  for (int i = 0; i < items_total; ++i) ids.push_back(ItemTaskId(PhaseIdAt(index), i));
  return ids;
}

const Json& TaskflowDriver::Args(const RunState& run) {
  if (!args_parsed_) {
    args_ = flow::ProtoStructToJson(run.record().run().args());
    args_parsed_ = true;
  }
  return args_;
}

void TaskflowDriver::Start(RunState& run, int64_t now_ms) {
  if (run.record().phases_size() == 0) {
    for (int i = 0; i < PhaseCount(); ++i) {
      v1::PhaseStatus& status = *run.MutablePhases().Add()->mutable_status();
      status.set_phase_id(PhaseIdAt(i));
      status.set_type(PhaseAt(i).type());
      status.set_state(v1::TASK_STATE_PENDING);
      status.set_layer(layers_[i]);
    }
  }
  Advance(run, now_ms);
}

void TaskflowDriver::Advance(RunState& run, int64_t now_ms) {
  if (IsTerminal(run.record().run().status())) return;
  // Only phases whose tasks changed since the last commit can finish or
  // progress; the first call (new, resumed or recovered run) looks at all.
  // This keeps a batch's cost proportional to what happened in it, not to
  // the size of the run.
  std::vector<int> touched;
  if (!scanned_) {
    touched.reserve(PhaseCount());
    for (int i = 0; i < PhaseCount(); ++i) touched.push_back(i);
  } else {
    touched.reserve(run.changed_tasks().size());
    for (const std::string& task_id : run.changed_tasks()) {
      const store::TaskRecord* task = run.FindTask(task_id);
      if (task == nullptr) continue;
      auto index = index_of_.find(task->task().phase_id());
      if (index != index_of_.end()) touched.push_back(index->second);
    }
    // In index order, each once, as phases were always visited.
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  }
  bool phase_finished = !scanned_;
  scanned_ = true;
  for (int i : touched) {
    if (run.record().phases(i).status().state() != v1::TASK_STATE_RUNNING) continue;
    if (MaybeFinishPhase(run, i, now_ms)) {
      phase_finished = true;
    } else {
      PromoteItems(run, i, now_ms);
    }
    ForgetSingleTaskProgress(i);
  }
  // A finished phase may satisfy dependencies or free a concurrency slot;
  // starting phases can finish others at once (empty map, resume reuse).
  if (phase_finished) {
    while (StartReadyPhases(run, now_ms)) {
    }
  }
  const auto& phases = run.record().phases();
  while (first_open_phase_ < phases.size() && PhaseTerminal(phases[first_open_phase_])) {
    ++first_open_phase_;
  }
  if (first_open_phase_ < phases.size()) return;
  FinishRun(run, now_ms);
}

bool TaskflowDriver::StartReadyPhases(RunState& run, int64_t now_ms) {
  // Phases leave `pending` for good, so the list only shrinks.
  std::erase_if(pending_, [&](int i) {
    return run.record().phases(i).status().state() != v1::TASK_STATE_PENDING;
  });
  int in_flight = 0;
  if (concurrency_ > 0) {
    for (const store::PhaseRecord& phase : run.record().phases()) {
      if (phase.status().state() == v1::TASK_STATE_RUNNING) ++in_flight;
    }
  }
  // Made once the run is blocked, which a phase started in this loop may do
  // (a reused gate on resume).
  std::string blocked_skip;
  bool changed = false;
  for (int i : pending_) {
    if (run.record().phases(i).status().state() != v1::TASK_STATE_PENDING) continue;
    if (!run.record().blocked_by().empty()) {
      if (blocked_skip.empty()) blocked_skip = BlockedSkipReason(run);
      SkipPhase(run, i, blocked_skip, now_ms);
      changed = true;
      continue;
    }
    bool waiting = false;
    std::string skip_reason;
    for (const std::string& dep : DepsAt(i)) {
      int d = index_of_.at(dep);
      const store::PhaseRecord& dep_phase = run.record().phases(d);
      v1::TaskState state = dep_phase.status().state();
      if (!IsTerminal(state)) {
        waiting = true;
        break;
      }
      // An approval with `onReject` decides which of its dependents run.
      if (std::string routed = RouteSkipReason(run, d, dep_phase, PhaseIdAt(i)); !routed.empty()) {
        skip_reason = std::move(routed);
        continue;
      }
      if (state == v1::TASK_STATE_COMPLETED || OptionalAt(d)) continue;
      // A skipped dependency passes on the reason naming the phase that failed.
      skip_reason = state == v1::TASK_STATE_SKIPPED
                        ? dep_phase.status().skip_reason()
                        : absl::StrCat("upstream phase '", dep, "' failed");
    }
    if (waiting) continue;
    if (!skip_reason.empty()) {
      SkipPhase(run, i, std::move(skip_reason), now_ms);
      changed = true;
      continue;
    }
    if (concurrency_ > 0 && in_flight >= concurrency_) continue;
    StartPhase(run, i, now_ms);
    changed = true;
    if (run.record().phases(i).status().state() == v1::TASK_STATE_RUNNING) ++in_flight;
  }
  return changed;
}

flow::InterpolationContext TaskflowDriver::ContextFor(const RunState& run, int index,
                                                      const v1::Phase& phase) {
  flow::InterpolationContext ctx;
  ctx.args = &Args(run);
  ctx.max_bytes = static_cast<size_t>(std::max<int64_t>(0, limits_.max_interpolated_bytes));
  ctx.previous_candidates = flow::PhaseDependencies(phase);
  if (phase.type() == v1::PHASE_TYPE_MAP) {
    ctx.item_var = phase.item_var().empty() ? "item" : phase.item_var();
  }
  // Templates may only name upstream phases (the validator checks), so only
  // those are loaded; JSON is parsed only for phases a template reads as JSON.
  std::string templates =
      absl::StrCat(phase.task(), "\n", phase.over(), "\n", phase.approval().prompt());
  for (const v1::Branch& branch : phase.branches())
    absl::StrAppend(&templates, "\n", branch.task());
  if (!absl::StrContains(templates, "{")) return ctx;
  for (const std::string& id : UpstreamOf(index)) {
    int d = index_of_.at(id);
    const store::PhaseRecord& record = run.record().phases(d);
    flow::StepValue value;
    switch (record.status().state()) {
      case v1::TASK_STATE_COMPLETED:
        value.state = flow::StepValue::State::kDone;
        break;
      case v1::TASK_STATE_SKIPPED:
        value.state = flow::StepValue::State::kSkipped;
        break;
      case v1::TASK_STATE_FAILED:
      case v1::TASK_STATE_CANCELLED:
        value.state = flow::StepValue::State::kFailed;
        break;
      default:
        continue;
    }
    value.output = record.output();
    value.optional = OptionalAt(d);
    const bool approval = PhaseAt(d).has_approval();
    if (approval) {
      // `{steps.ID.output.NAME}` reads the decision's form values.
      std::vector<std::string>& fields = value.form_fields.emplace();
      for (const v1::ApprovalField& field : PhaseAt(d).approval().form()) {
        fields.push_back(field.name());
      }
    }
    if (approval || absl::StrContains(templates, absl::StrCat("steps.", id, ".json"))) {
      if (!record.output_json().empty()) {
        absl::StatusOr<Json> parsed = ParseJson(record.output_json());
        if (parsed.ok()) value.json = *std::move(parsed);
      } else {
        value.json = flow::ExtractJson(record.output());
      }
    }
    ctx.steps.emplace(id, std::move(value));
  }
  return ctx;
}

std::string TaskflowDriver::InterpolationError(const v1::Phase& phase, absl::string_view field,
                                               const absl::Status& status) const {
  if (absl::IsResourceExhausted(status)) {
    return absl::StrCat("phase '", phase.id(), "': '", field, "' ", status.message(),
                        ", the scheduler's limit (scheduler flag ",
                        limit_flags::kMaxInterpolatedBytes,
                        "); pass large data by file path instead of inlining it");
  }
  return absl::StrCat("phase '", phase.id(), "': ", status.message());
}

store::TaskRecord TaskflowDriver::NewTask(RunState& run, int index, const v1::Phase& phase,
                                          std::string task_id, int item_index, std::string agent,
                                          std::string prompt, int64_t now_ms) {
  store::TaskRecord record;
  v1::Task& task = *record.mutable_task();
  task.set_task_id(std::move(task_id));
  task.set_run_id(run.run_id());
  task.set_phase_id(phase.id());
  task.set_item_index(item_index);
  // The Assignment.role vocabulary (worker.proto).
  task.set_role(board_                                    ? "board_task"
                : phase.type() == v1::PHASE_TYPE_MAP      ? "map_item"
                : phase.type() == v1::PHASE_TYPE_PARALLEL ? "branch"
                : phase.has_approval()                    ? kApprovalRole
                                                          : "phase");
  task.set_agent(std::move(agent));
  task.set_state(v1::TASK_STATE_PENDING);
  task.set_title(FirstLine(prompt));
  if (!IsFanOut(phase)) *task.mutable_deps() = phase.depends_on();
  *task.mutable_created_at() = ToTimestamp(now_ms);

  // Not the ids, agent, role or the run's args: the task and its run say
  // them, and AssignmentToSend fills them in at dispatch.
  v1::Assignment& assignment = *record.mutable_assignment();
  assignment.set_prompt(std::move(prompt));
  // Only what the phase says: a string field set to "" is still a string
  // object of its own in memory (three per pending task when the phase
  // names no model, thinking or cwd), and is stored the same as unset.
  if (!phase.model().empty()) assignment.set_model(phase.model());
  if (!phase.thinking().empty()) assignment.set_thinking(phase.thinking());
  *assignment.mutable_tools() = phase.tools();
  if (!phase.cwd().empty()) assignment.set_cwd(phase.cwd());
  assignment.set_timeout_seconds(phase.timeout_seconds() > 0 ? phase.timeout_seconds()
                                                             : default_timeout_seconds_);
  assignment.set_output(phase.output());
  // Tools the phase turns caching off (or on) for by name: the worker can skip
  // asking the cache. `cacheable: false` for every tool is enforced by the
  // scheduler at lookup (the worker cannot list tools it was not told about).
  for (const auto& [tool, cached] : phase.cacheable().tools()) {
    (*assignment.mutable_tool_cache_overrides())[tool] = cached;
  }

  record.set_max_attempts(phase.has_retries() ? phase.retries() + 1 : default_max_attempts_);
  record.set_optional(phase.is_optional());
  if (board_) record.set_priority(priority_[index]);
  store::RunRecord& run_record = run.MutableRecord();
  record.set_order(run_record.next_task_order());
  run_record.set_next_task_order(run_record.next_task_order() + 1);
  if (phase.has_approval()) DescribeApproval(record, phase, record.assignment().prompt());
  return record;
}

void TaskflowDriver::StartPhase(RunState& run, int index, int64_t now_ms) {
  const v1::Phase started = StartablePhase(index);
  const v1::Phase& phase = started;
  // Whatever happens below, the phase starts once per driver (a resume
  // makes a new one from the stored spec).
  ReleaseStarted(index);
  flow::InterpolationContext ctx = ContextFor(run, index, phase);
  struct Item {
    std::string agent;
    std::string prompt;
  };
  std::vector<Item> items;
  std::vector<std::string> item_json;
  switch (phase.type()) {
    case v1::PHASE_TYPE_PARALLEL:
      for (int b = 0; b < phase.branches_size(); ++b) {
        const v1::Branch& branch = phase.branches(b);
        absl::StatusOr<std::string> prompt = flow::Interpolate(branch.task(), ctx);
        if (!prompt.ok()) {
          return FailPhase(
              run, index,
              InterpolationError(phase, absl::StrCat("branches[", b, "].task"), prompt.status()),
              now_ms);
        }
        items.push_back({branch.agent().empty() ? phase.agent() : branch.agent(), *prompt});
      }
      break;
    case v1::PHASE_TYPE_MAP: {
      absl::StatusOr<Json> over = flow::InterpolateValue(phase.over(), ctx);
      absl::StatusOr<std::vector<Json>> values =
          over.ok() ? flow::ResolveMapItems(phase.id(), *over)
                    : absl::StatusOr<std::vector<Json>>(over.status());
      if (!values.ok()) {
        std::string message(values.status().message());
        if (!over.ok()) {
          message = InterpolationError(phase, "over", over.status());
        } else if (!absl::StartsWith(message, "map phase")) {
          message = absl::StrCat("phase '", phase.id(), "': ", message);
        }
        return FailPhase(run, index, std::move(message), now_ms);
      }
      if (static_cast<int64_t>(values->size()) > limits_.max_items_per_phase) {
        return FailPhase(
            run, index,
            absl::StrCat("map phase '", phase.id(), "': 'over' resolved to ", values->size(),
                         " items, over the scheduler's limit of ", limits_.max_items_per_phase,
                         " per phase (scheduler flag ", limit_flags::kMaxItemsPerPhase,
                         "); split the list across several map phases"),
            now_ms);
      }
      for (const Json& value : *values) {
        ctx.item = &value;
        absl::StatusOr<std::string> prompt = flow::Interpolate(phase.task(), ctx);
        if (!prompt.ok()) {
          return FailPhase(run, index, InterpolationError(phase, "task", prompt.status()), now_ms);
        }
        items.push_back({phase.agent(), *prompt});
        item_json.push_back(DumpJson(value));
      }
      ctx.item = nullptr;
      break;
    }
    default: {
      // An approval asks its `prompt` (a gate's: its `task` by default); the
      // others run their `task`.
      const bool approval = phase.has_approval();
      absl::StatusOr<std::string> prompt =
          flow::Interpolate(approval ? flow::ApprovalPromptTemplate(phase) : phase.task(), ctx);
      if (!prompt.ok()) {
        const char* field = !approval || phase.approval().prompt().empty() ? "task"
                            : phase.type() == v1::PHASE_TYPE_GATE          ? "approval.prompt"
                                                                           : "prompt";
        return FailPhase(run, index, InterpolationError(phase, field, prompt.status()), now_ms);
      }
      items.push_back({phase.agent(), *prompt});
    }
  }

  flow::PhaseInputs inputs;
  inputs.agent = phase.agent();
  inputs.model = phase.model();
  inputs.tools.assign(phase.tools().begin(), phase.tools().end());
  for (const Item& item : items) {
    inputs.tasks.push_back(phase.type() == v1::PHASE_TYPE_PARALLEL
                               ? absl::StrCat(item.agent, "\n", item.prompt)
                               : item.prompt);
  }
  std::string hash = flow::PhaseInputHash(inputs);

  store::PhaseRecord& phase_record = run.MutablePhase(index);
  if (phase_record.has_previous() &&
      phase_record.previous().status().state() == v1::TASK_STATE_COMPLETED &&
      phase_record.previous().input_hash() == hash &&
      !WasRejected(phase, phase_record.previous())) {
    // ResumeRun: the same inputs already produced this output; reuse it.
    store::PhaseRecord previous = phase_record.previous();
    phase_record = std::move(previous);
    phase_record.set_reused(true);
    run.MarkPhaseItems(index);
    phase_record.mutable_status()->set_layer(layers_[index]);
    // An approval's verdict is in the reused status; an agent's is parsed.
    if (phase.type() == v1::PHASE_TYPE_GATE && !phase.has_approval()) ApplyGate(run, index);
    EmitPhaseEvent(run, index);
    return;
  }
  // Tasks from before a resume may be kept (below); a new run has none.
  const bool resuming = phase_record.has_previous();
  phase_record.clear_previous();
  // A board task's phase is given its hash when it completes (from its
  // task, the same value): only a completed phase's is ever compared, and a
  // board has a phase per pending task.
  if (!board_) phase_record.set_input_hash(hash);
  phase_record.set_fanned_out(true);
  for (std::string& json : item_json) phase_record.add_items(std::move(json));
  run.MarkPhaseItems(index);
  v1::PhaseStatus& status = *phase_record.mutable_status();
  status.set_state(v1::TASK_STATE_RUNNING);
  *status.mutable_started_at() = ToTimestamp(now_ms);
  status.set_items_total(static_cast<int>(items.size()));

  // Tasks left from before a resume with a different fan-out go away.
  std::vector<std::string> ids = TaskIdsOf(index, static_cast<int>(items.size()));
  // A phase's task ids all start with its id, so they are one range of the
  // ordered task map (plus ids of other phases sharing the prefix, skipped).
  // Only a resume leaves tasks behind (PrepareResume keeps every phase's
  // last outcome as `previous`), so a new run does not search for them.
  std::vector<std::string> stale;
  for (auto it = resuming ? run.tasks().lower_bound(phase.id()) : run.tasks().end();
       it != run.tasks().end() && absl::StartsWith(it->first, phase.id()); ++it) {
    if (it->second.task().phase_id() == phase.id() &&
        std::find(ids.begin(), ids.end(), it->first) == ids.end()) {
      stale.push_back(it->first);
    }
  }
  for (const std::string& id : stale) run.RemoveTask(id);

  if (items.empty()) {
    // A map over [] is done at once (docs/semantics.md#map-and-parallel-phases).
    status.set_state(v1::TASK_STATE_COMPLETED);
    *status.mutable_finished_at() = ToTimestamp(now_ms);
    phase_record.set_output("");
    phase_record.set_output_json("[]");
    EmitPhaseEvent(run, index);
    return;
  }
  for (size_t i = 0; i < items.size(); ++i) {
    store::TaskRecord task = NewTask(run, index, phase, ids[i], static_cast<int>(i),
                                     std::move(items[i].agent), std::move(items[i].prompt), now_ms);
    if (const store::TaskRecord* before = resuming ? run.FindTask(ids[i]) : nullptr;
        before != nullptr && SameWork(*before, task)) {
      // ResumeRun: this item already completed with the same inputs, so it
      // is kept; an unfinished child run is resumed rather than replaced.
      if (before->task().state() == v1::TASK_STATE_COMPLETED) continue;
      task.mutable_task()->set_child_run_id(before->task().child_run_id());
    }
    if (const store::TaskRecord* before = resuming ? run.FindTask(ids[i]) : nullptr) {
      CarryAttemptsOnResume(*before, task, now_ms);
    }
    run.PutTask(std::move(task));
  }
  EmitPhaseEvent(run, index);
  PromoteItems(run, index, now_ms);
  ForgetSingleTaskProgress(index);
}

bool TaskflowDriver::SameWork(const store::TaskRecord& before, const store::TaskRecord& now) {
  const v1::Assignment& a = before.assignment();
  const v1::Assignment& b = now.assignment();
  // The agent from the task: records stored before decision 118 also carry
  // it in the assignment, newer ones do not.
  return before.task().phase_id() == now.task().phase_id() &&
         before.task().agent() == now.task().agent() && a.prompt() == b.prompt() &&
         a.model() == b.model() && a.thinking() == b.thinking() &&
         std::equal(a.tools().begin(), a.tools().end(), b.tools().begin(), b.tools().end());
}

std::string TaskflowDriver::TaskIdAt(int index, int item) const {
  return IsFanOut(PhaseAt(index)) ? ItemTaskId(PhaseIdAt(index), item) : PhaseIdAt(index);
}

TaskflowDriver::PhaseProgress& TaskflowDriver::ProgressOf(int index, int items) {
  std::unique_ptr<PhaseProgress>& slot = progress_[static_cast<size_t>(index)];
  if (slot == nullptr) slot = std::make_unique<PhaseProgress>();
  PhaseProgress& progress = *slot;
  if (progress.counted.size() != static_cast<size_t>(items)) {
    progress = PhaseProgress();
    progress.counted.assign(items, false);
  }
  return progress;
}

void TaskflowDriver::Track(const RunState& run, int index, PhaseProgress& progress) {
  const int items = static_cast<int>(progress.counted.size());
  // Past what has started (or was kept from before a resume).
  // States are read without parsing the tasks (RunState::StateOf): only an
  // ended task's usage needs its record.
  while (progress.start_from < items) {
    if (run.StateOf(TaskIdAt(index, progress.start_from)) == v1::TASK_STATE_PENDING) break;
    ++progress.start_from;
  }
  for (int i = progress.open_from; i < progress.start_from; ++i) {
    if (progress.counted[i]) continue;
    const std::string id = TaskIdAt(index, i);
    const std::optional<v1::TaskState> state = run.StateOf(id);
    if (!state.has_value()) {
      progress.counted[i] = true;  // nothing to count
      continue;
    }
    if (!IsTerminal(*state)) continue;
    progress.counted[i] = true;
    *state == v1::TASK_STATE_COMPLETED ? ++progress.done : ++progress.failed;
    AddUsage(progress.usage, run.FindTask(id)->task().usage());
  }
  while (progress.open_from < progress.start_from && progress.counted[progress.open_from]) {
    ++progress.open_from;
  }
}

void TaskflowDriver::ForgetSingleTaskProgress(int index) {
  // Rebuilt from its one task when next needed, as a new driver does: a
  // board is a phase per task, and keeping each one's counts while the task
  // waits in the queue cost more than a hundred bytes per pending task.
  if (!IsFanOut(PhaseAt(index))) progress_[static_cast<size_t>(index)].reset();
}

void TaskflowDriver::PromoteItems(RunState& run, int index, int64_t now_ms) {
  const v1::Phase& phase = PhaseAt(index);
  const int items = run.record().phases(index).status().items_total();
  PhaseProgress& progress = ProgressOf(index, items);
  Track(run, index, progress);
  int limit = IsFanOut(phase) ? (phase.concurrency() > 0 ? phase.concurrency() : concurrency_) : 1;
  int in_flight = 0;
  for (int i = progress.open_from; i < progress.start_from; ++i) {
    const std::optional<v1::TaskState> state = run.StateOf(TaskIdAt(index, i));
    if (state.has_value() && IsInFlight(*state)) ++in_flight;
  }
  while (progress.start_from < items && (limit <= 0 || in_flight < limit)) {
    const std::string id = TaskIdAt(index, progress.start_from);
    ++progress.start_from;
    const std::optional<v1::TaskState> state = run.StateOf(id);
    if (!state.has_value()) continue;
    if (*state != v1::TASK_STATE_PENDING) {
      in_flight += IsInFlight(*state);
      continue;
    }
    store::TaskRecord& ready = run.MutableTask(id);
    if (flow::IsPatternPhase(phase)) {
      // Composition: a child run of the phase's pattern does the task.
      AwaitChildRun(ready, PhasePatternFlow(parent_, phase, id, ready.assignment().prompt()),
                    now_ms);
    } else if (phase.has_approval()) {
      // A person decides: no worker, no slot, no lease (approval_task.h).
      StartWaiting(ready, phase.timeout_seconds(), now_ms);
    } else {
      ready.mutable_task()->set_state(v1::TASK_STATE_READY);
      ready.set_ready_unix_ms(now_ms);
    }
    ++in_flight;
  }
}

bool TaskflowDriver::MaybeFinishPhase(RunState& run, int index, int64_t now_ms) {
  const v1::Phase& phase = PhaseAt(index);
  const store::PhaseRecord& current = run.record().phases(index);
  const int item_count = current.status().items_total();
  PhaseProgress& progress = ProgressOf(index, item_count);
  Track(run, index, progress);
  if (progress.open_from < item_count) {
    // Still running: report progress from the counts, without reading
    // every item again.
    const v1::PhaseStatus& now = current.status();
    if (now.items_done() == progress.done && now.items_failed() == progress.failed) return false;
    v1::PhaseStatus& status = *run.MutablePhase(index).mutable_status();
    status.set_items_done(progress.done);
    status.set_items_failed(progress.failed);
    *status.mutable_usage() = progress.usage;
    EmitPhaseEvent(run, index);
    return false;
  }
  // Every item ended: read them once, in order, for the phase's output.
  std::vector<std::string> ids = TaskIdsOf(index, item_count);
  int done = 0;
  int failed = 0;
  v1::Usage usage;
  std::vector<flow::FanOutItem> items;
  std::string first_error;
  for (const std::string& id : ids) {
    const store::TaskRecord* task = run.FindTask(id);
    if (task == nullptr) continue;
    v1::TaskState state = task->task().state();
    if (!IsTerminal(state)) continue;  // not reached: every item was counted ended
    AddUsage(usage, task->task().usage());
    bool ok = state == v1::TASK_STATE_COMPLETED;
    ok ? ++done : ++failed;
    if (!ok && first_error.empty()) {
      first_error = task->task().error().empty() ? "cancelled" : task->task().error();
      if (IsFanOut(phase)) first_error = absl::StrCat(id, ": ", first_error);
    }
    items.push_back(
        {task->task().agent(),
         ok ? task->task().output()
            : (task->task().output().empty() ? task->task().error() : task->task().output()),
         !ok});
  }
  store::PhaseRecord& record = run.MutablePhase(index);
  v1::PhaseStatus& status = *record.mutable_status();
  status.set_items_done(done);
  status.set_items_failed(failed);
  *status.mutable_usage() = usage;
  *status.mutable_finished_at() = ToTimestamp(now_ms);
  if (IsFanOut(phase)) {
    record.set_output(flow::MergeFanOutText(items));
    record.set_output_json(DumpJson(flow::MergeFanOutJson(items)));
  } else if (!items.empty()) {
    record.set_output(items.front().output);
    // The decision is JSON: `{steps.ID.json.values.x}` reads the form.
    if (phase.has_approval()) record.set_output_json(items.front().output);
  }
  if (failed > 0) {
    status.set_state(v1::TASK_STATE_FAILED);
    record.set_error(IsFanOut(phase) ? absl::StrCat(failed, " of ", ids.size(),
                                                    " items failed; first: ", first_error)
                                     : first_error);
  } else {
    status.set_state(v1::TASK_STATE_COMPLETED);
    if (const store::TaskRecord* task = board_ ? run.FindTask(ids.front()) : nullptr) {
      record.set_input_hash(BoardTaskInputHash(*task));
    }
    if (phase.has_approval()) {
      ApplyApproval(run, index);
    } else if (phase.type() == v1::PHASE_TYPE_GATE) {
      ApplyGate(run, index);
    }
  }
  EmitPhaseEvent(run, index);
  return true;
}

void TaskflowDriver::ApplyGate(RunState& run, int index) {
  store::PhaseRecord& phase = run.MutablePhase(index);
  flow::GateVerdict verdict = flow::ParseGateVerdict(phase.output());
  v1::GateVerdict& gate = *phase.mutable_status()->mutable_gate();
  gate.set_pass(verdict.pass);
  gate.set_reason(verdict.reason);
  if (!verdict.pass && run.record().blocked_by().empty()) {
    store::RunRecord& record = run.MutableRecord();
    record.set_blocked_by(PhaseIdAt(index));
    record.set_blocked_reason(verdict.reason);
  }
}

void TaskflowDriver::ApplyApproval(RunState& run, int index) {
  const store::TaskRecord* task = run.FindTask(PhaseIdAt(index));
  if (task == nullptr) return;
  const bool rejected = IsRejected(*task);
  const std::string reason = rejected ? RejectionReason(*task) : "";
  // Shown like a gate's verdict; a rejection blocks the run like one,
  // unless `onReject` routes it (StartReadyPhases then skips and runs
  // dependents by the verdict).
  v1::GateVerdict& gate = *run.MutablePhase(index).mutable_status()->mutable_gate();
  gate.set_pass(!rejected);
  gate.set_reason(reason);
  if (rejected && !flow::RoutesRejection(PhaseAt(index)) && run.record().blocked_by().empty()) {
    store::RunRecord& record = run.MutableRecord();
    record.set_blocked_by(PhaseIdAt(index));
    record.set_blocked_reason(reason);
  }
}

bool TaskflowDriver::WasRejected(const v1::Phase& phase, const store::PhaseRecord& record) {
  // ResumeRun asks again after a rejection that blocked the run rather than
  // reusing it. A routed rejection is reused: the run went on past it, and a
  // later failure is what the resume retries.
  if (!phase.has_approval() || flow::RoutesRejection(phase)) return false;
  return record.status().has_gate() && !record.status().gate().pass();
}

std::string TaskflowDriver::RouteSkipReason(const RunState& run, int approval_index,
                                            const store::PhaseRecord& record,
                                            const std::string& dependent_id) const {
  const v1::Phase& approval = PhaseAt(approval_index);
  if (!flow::RoutesRejection(approval)) return "";
  const v1::PhaseStatus& status = record.status();
  flow::ApprovalOutcome outcome;
  outcome.completed = status.state() == v1::TASK_STATE_COMPLETED;
  outcome.rejected = status.has_gate() && !status.gate().pass();
  if (outcome.rejected) {
    // A reference, not the comment: it is copied into every phase skipped.
    const store::TaskRecord* task = run.FindTask(approval.id());
    outcome.reason = task != nullptr ? RejectionReference(*task) : "rejected (see its decision)";
  }
  return flow::RouteSkipReason(approval, outcome,
                               routes_.at(approval_index).contains(dependent_id));
}

void TaskflowDriver::FailPhase(RunState& run, int index, std::string error, int64_t now_ms) {
  store::PhaseRecord& record = run.MutablePhase(index);
  record.clear_previous();
  record.set_error(std::move(error));
  v1::PhaseStatus& status = *record.mutable_status();
  status.set_state(v1::TASK_STATE_FAILED);
  *status.mutable_started_at() = ToTimestamp(now_ms);
  *status.mutable_finished_at() = ToTimestamp(now_ms);
  EmitPhaseEvent(run, index);
}

void TaskflowDriver::SkipPhase(RunState& run, int index, std::string reason, int64_t now_ms) {
  store::PhaseRecord& record = run.MutablePhase(index);
  record.clear_previous();
  v1::PhaseStatus& status = *record.mutable_status();
  status.set_state(v1::TASK_STATE_SKIPPED);
  status.set_skip_reason(reason);
  *status.mutable_finished_at() = ToTimestamp(now_ms);
  // Boards show tasks, not phases: the task itself carries the skip.
  if (board_) {
    const v1::Phase phase = StartablePhase(index);
    ReleaseStarted(index);
    store::TaskRecord task =
        NewTask(run, index, phase, phase.id(), 0, phase.agent(), phase.task(), now_ms);
    task.mutable_task()->set_state(v1::TASK_STATE_SKIPPED);
    task.mutable_task()->set_skip_reason(std::move(reason));
    *task.mutable_task()->mutable_finished_at() = ToTimestamp(now_ms);
    run.PutTask(std::move(task));
  }
  EmitPhaseEvent(run, index);
}

std::string TaskflowDriver::BlockedSkipReason(const RunState& run) const {
  const std::string& blocked_by = run.record().blocked_by();
  auto index = index_of_.find(blocked_by);
  if (index == index_of_.end() || !PhaseAt(index->second).has_approval()) {
    return absl::StrCat("gate '", blocked_by, "' blocked: ", run.record().blocked_reason());
  }
  // The comment could be as long as --approval-max-comment-bytes, and every
  // phase not started (and its event) would carry a copy.
  const store::TaskRecord* task = run.FindTask(blocked_by);
  return absl::StrCat("approval '", blocked_by, "' blocked: ",
                      task != nullptr ? RejectionReference(*task) : "rejected (see its decision)");
}

void TaskflowDriver::EmitPhaseEvent(RunState& run, int index) {
  // Boards show their tasks; their one-task phases would only repeat them.
  if (board_) return;
  v1::RunEvent event;
  *event.mutable_phase_change()->mutable_phase() = run.record().phases(index).status();
  run.Emit(std::move(event));
}

void TaskflowDriver::FinishRun(RunState& run, int64_t now_ms) {
  const store::RunRecord& record = run.record();
  std::string first_failure;
  for (int i = 0; i < PhaseCount(); ++i) {
    const store::PhaseRecord& phase = record.phases(i);
    if (phase.status().state() == v1::TASK_STATE_FAILED && !OptionalAt(i) &&
        first_failure.empty()) {
      first_failure =
          absl::StrCat(board_ ? "task '" : "phase '", PhaseIdAt(i), "' failed: ", phase.error());
    }
  }
  const store::PhaseRecord* final_phase = nullptr;
  auto final_index = index_of_.find(final_phase_);
  if (final_index != index_of_.end()) final_phase = &record.phases(final_index->second);
  bool final_done =
      final_phase != nullptr && final_phase->status().state() == v1::TASK_STATE_COMPLETED;

  if (!record.blocked_by().empty()) {
    const store::PhaseRecord& gate = record.phases(index_of_.at(record.blocked_by()));
    const bool approval = PhaseAt(index_of_.at(record.blocked_by())).has_approval();
    return engine::FinishRun(
        run, v1::RUN_STATUS_BLOCKED,
        final_done ? final_phase->output()
                   : absl::StrCat(approval ? "Approval rejected the workflow.\nReason: "
                                           : "Gate blocked the workflow.\nReason: ",
                                  record.blocked_reason(), "\n\n", gate.output()),
        "", now_ms);
  }
  if (!first_failure.empty()) {
    return engine::FinishRun(run, v1::RUN_STATUS_FAILED, final_done ? final_phase->output() : "",
                             first_failure, now_ms);
  }
  std::string output;
  if (board_) {
    Json outputs = Json::object();
    // Appended, not looked up: task ids are unique (validated), and an
    // ordered object's operator[] searches its keys, which made finishing a
    // 100,000-task board take seconds.
    Json::object_t& by_task = outputs.get_ref<Json::object_t&>();
    by_task.reserve(PhaseCount());
    for (int i = 0; i < PhaseCount(); ++i) {
      if (record.phases(i).status().state() == v1::TASK_STATE_COMPLETED) {
        by_task.emplace_back(PhaseIdAt(i), record.phases(i).output());
      }
    }
    output = DumpJson(outputs);
  } else if (final_phase != nullptr && final_phase->status().state() == v1::TASK_STATE_SKIPPED) {
    // Only a rejection's route skips the final phase of a run that
    // completes: the output is the end of the route taken, the last phase
    // (array order) that completed.
    for (int i = PhaseCount() - 1; i >= 0; --i) {
      if (record.phases(i).status().state() == v1::TASK_STATE_COMPLETED) {
        output = record.phases(i).output();
        break;
      }
    }
  } else if (final_phase != nullptr) {
    output = final_phase->output();
  }
  engine::FinishRun(run, v1::RUN_STATUS_COMPLETED, std::move(output), "", now_ms);
}

std::unique_ptr<Driver> MakeTaskflowDriver(const v1::FlowSpec& spec, const RunLimits& limits) {
  return std::make_unique<TaskflowDriver>(spec, limits);
}

}  // namespace taskboard::engine
