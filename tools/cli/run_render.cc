#include "tools/cli/run_render.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/phase_graph.h"
#include "scheduler/flow/phase_pattern.h"
#include "tools/cli/ansi.h"
#include "tools/cli/dag_rails.h"
#include "tools/cli/display_format.h"
#include "tools/cli/display_width.h"
#include "tools/cli/run_states.h"
#include "tools/cli/tasks_by_phase.h"

namespace taskboard::cli {
namespace {

using Layers = std::vector<std::vector<std::string>>;

constexpr absl::string_view kSpinnerFrames[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
constexpr int kSpinnerFrameCount = sizeof(kSpinnerFrames) / sizeof(kSpinnerFrames[0]);

std::string WithReason(absl::string_view label, absl::string_view reason) {
  const std::string line = OneLine(reason);
  return line.empty() ? std::string(label) : absl::StrCat(label, ": ", line);
}

std::string GateText(const v1::GateVerdict& gate) {
  return WithReason(gate.pass() ? "PASS" : "BLOCK", gate.reason());
}

bool GateBlocked(v1::TaskState state, bool has_gate, const v1::GateVerdict& gate) {
  return state == v1::TASK_STATE_COMPLETED && has_gate && !gate.pass();
}

Style IconStyle(v1::TaskState state, bool blocked) {
  if (blocked) return Style::kRed;
  switch (state) {
    case v1::TASK_STATE_COMPLETED:
      return Style::kGreen;
    case v1::TASK_STATE_FAILED:
      return Style::kRed;
    case v1::TASK_STATE_RUNNING:
    case v1::TASK_STATE_RETRYING:
      return Style::kYellow;
    case v1::TASK_STATE_READY:
    case v1::TASK_STATE_DISPATCHED:
      return Style::kCyan;
    default:
      return Style::kDim;
  }
}

Style RunStyle(v1::RunStatus status) {
  switch (status) {
    case v1::RUN_STATUS_COMPLETED:
      return Style::kGreen;
    case v1::RUN_STATUS_FAILED:
    case v1::RUN_STATUS_BLOCKED:
    case v1::RUN_STATUS_TIMED_OUT:
      return Style::kRed;
    case v1::RUN_STATUS_RUNNING:
      return Style::kYellow;
    default:
      return Style::kDim;
  }
}

absl::string_view Spinner(int frame) { return kSpinnerFrames[frame % kSpinnerFrameCount]; }

// A piece of a row's tail, with the colour it takes when colours are on.
struct Piece {
  std::string text;
  std::optional<Style> style;
};

// One row before column alignment.
struct Row {
  absl::string_view rail = " ";
  std::string icon;
  Style icon_style = Style::kDim;
  bool pending = false;  // drawn dim
  std::string id;
  std::string kind;
  std::string agent;
  std::vector<Piece> tail;
  // The runs that carry the row out (a plan step, a pattern phase, the items
  // of a map of patterns), nested beneath it in this order.
  std::vector<std::string> child_run_ids;
};

// The rows of a run: its phases (taskflow) or its tasks (the other kinds).
std::vector<Row> RunRows(const v1::Run& run, absl::Time now, const RenderOptions& options);

// The icon of a row: the spinner frame for running rows when animating.
std::string RowIcon(v1::TaskState state, absl::string_view icon, const RenderOptions& options) {
  if (state == v1::TASK_STATE_RUNNING && options.spinner_frame >= 0) {
    return std::string(Spinner(options.spinner_frame));
  }
  return std::string(icon);
}

void AddTiming(const google::protobuf::Timestamp& started, const google::protobuf::Timestamp& ended,
               absl::Time now, std::vector<Piece>* tail) {
  if (std::optional<absl::Duration> elapsed = Elapsed(started, ended, now)) {
    tail->push_back({FormatElapsed(*elapsed), std::nullopt});
  }
}

void AddUsage(const v1::Usage& usage, std::vector<Piece>* tail) {
  if (std::string text = FormatUsage(usage); !text.empty()) tail->push_back({text, std::nullopt});
}

void AddToolCount(const ToolCount& count, std::vector<Piece>* tail) {
  if (std::string text = FormatToolCount(count); !text.empty()) {
    tail->push_back({std::move(text), std::nullopt});
  }
}

// The layer above a row, for its long edges: made a set only when a row
// with deps asks (a board's layer can hold every task, and most boards in
// one layer have no deps).
class Layer {
 public:
  explicit Layer(const std::vector<std::string>* ids = nullptr) : ids_(ids) {}
  const absl::flat_hash_set<absl::string_view>& Set() const {
    if (!set_.has_value()) {
      set_.emplace();
      if (ids_ != nullptr) set_->insert(ids_->begin(), ids_->end());
    }
    return *set_;
  }

 private:
  const std::vector<std::string>* ids_;
  mutable std::optional<absl::flat_hash_set<absl::string_view>> set_;
};

template <typename Deps>
void AddEdges(const Deps& deps, const Layer& previous_layer, std::vector<Piece>* tail) {
  if (deps.empty()) return;
  const std::vector<std::string> edges = LongEdges(deps, previous_layer.Set());
  if (!edges.empty()) tail->push_back({"↳ " + absl::StrJoin(edges, ", "), Style::kDim});
}

// An approval step waiting for a person says so, with the first line of
// what it asks (the whole prompt is in `taskboard approvals --json`).
void AddApprovalWait(absl::Span<const v1::Task* const> tasks, std::vector<Piece>* tail) {
  for (const v1::Task* task : tasks) {
    if (task->role() != "approval" || task->state() != v1::TASK_STATE_RUNNING ||
        task->approval().has_decision()) {
      continue;
    }
    const std::string& prompt = task->approval().prompt();
    tail->push_back({absl::StrCat("waiting for approval: ", prompt.substr(0, prompt.find('\n'))),
                     Style::kYellow});
  }
}

void AddOutcome(std::string outcome, v1::TaskState state, std::vector<Piece>* tail) {
  if (outcome.empty()) return;
  const bool bad = state == v1::TASK_STATE_FAILED || absl::StartsWith(outcome, "BLOCK");
  tail->push_back({std::move(outcome), bad ? std::optional<Style>(Style::kRed) : std::nullopt});
}

// A supervisor task's last review: `accepted 0.90`, `needs-revision: why`,
// `escalate: why`, prefixed with the round after the first.
void AddVerdict(const v1::Task& task, std::vector<Piece>* tail) {
  if (task.reviews().empty()) return;
  const v1::ReviewAssessment& review = task.reviews(task.reviews_size() - 1);
  std::string text = review.iteration() > 1 ? absl::StrCat("round ", review.iteration(), ": ") : "";
  absl::StrAppend(&text, review.verdict());
  if (review.score() > 0) absl::StrAppend(&text, " ", absl::StrFormat("%.2f", review.score()));
  const bool accepted = review.verdict() == "accepted";
  if (!accepted && !review.feedback().empty()) {
    absl::StrAppend(&text, ": ", OneLine(review.feedback()));
  }
  tail->push_back({std::move(text), accepted                         ? Style::kGreen
                                    : review.verdict() == "escalate" ? Style::kRed
                                                                     : Style::kYellow});
}

// Aligns the id, kind and agent columns over every row and joins the tail
// pieces; trailing empty columns add no spaces.
void AppendRows(const std::vector<Row>& rows, absl::Time now, const RenderOptions& options,
                absl::string_view indent, std::string* frame);

// A child run beneath its parent's task: its header, then its rows, one
// level further in.
void AppendChildRun(const v1::Run& child, absl::Time now, const RenderOptions& options,
                    const std::string& indent, std::string* frame) {
  RenderOptions nested = options;
  nested.tools = nullptr;  // the tally counts the followed run's calls only
  nested.width = 0;
  absl::StrAppend(frame,
                  FitToWidth(absl::StrCat(indent, Paint("↳ ", Style::kDim, options.color),
                                          RenderRunHeader(child, now, nested)),
                             options.width),
                  "\n");
  AppendRows(RunRows(child, now, nested), now, options, absl::StrCat(indent, "    "), frame);
}

void AppendRows(const std::vector<Row>& rows, absl::Time now, const RenderOptions& options,
                absl::string_view indent, std::string* frame) {
  int id_width = 0, kind_width = 0, agent_width = 0;
  for (const Row& row : rows) {
    id_width = std::max(id_width, DisplayWidth(row.id));
    kind_width = std::max(kind_width, DisplayWidth(row.kind));
    agent_width = std::max(agent_width, DisplayWidth(row.agent));
  }
  const bool color = options.color;
  for (const Row& row : rows) {
    struct Cell {
      std::string text;
      std::optional<Style> style;
      int width;
    };
    std::vector<Cell> cells = {
        {row.id, row.pending ? std::optional<Style>(Style::kDim) : std::nullopt, id_width},
        {row.kind, Style::kDim, kind_width}};
    if (agent_width > 0) cells.push_back({row.agent, std::nullopt, agent_width});
    for (const Piece& piece : row.tail) cells.push_back({piece.text, piece.style, 0});
    while (!cells.empty() && cells.back().text.empty()) cells.pop_back();

    std::string line =
        absl::StrCat(indent, "  ", Paint(row.rail, Style::kDim, color && row.rail != " "), " ",
                     Paint(row.icon, row.icon_style, color),
                     std::string(std::max(0, 2 - DisplayWidth(row.icon)), ' '));
    for (size_t i = 0; i < cells.size(); ++i) {
      const Cell& cell = cells[i];
      line += " ";
      line += cell.style ? Paint(cell.text, *cell.style, color) : cell.text;
      if (i + 1 < cells.size()) {
        line.append(std::max(0, cell.width - DisplayWidth(cell.text)) + 1, ' ');
      }
    }
    absl::StrAppend(frame, FitToWidth(line, options.width), "\n");
    if (options.children == nullptr) continue;
    for (const std::string& id : row.child_run_ids) {
      if (auto child = options.children->find(id); child != options.children->end()) {
        AppendChildRun(child->second, now, options, absl::StrCat(indent, "       "), frame);
      }
    }
  }
}

// Nests `child_run_ids` beneath `row`; those without a snapshot are named at
// the end of the row instead (`↳ run c-1`, `↳ runs c-1, c-2`).
void AddChildRuns(std::vector<std::string> child_run_ids, const RenderOptions& options, Row* row) {
  std::vector<std::string> unknown;
  for (const std::string& id : child_run_ids) {
    if (options.children == nullptr || !options.children->contains(id)) unknown.push_back(id);
  }
  if (!unknown.empty()) {
    row->tail.push_back(
        {absl::StrCat(unknown.size() == 1 ? "↳ run " : "↳ runs ", absl::StrJoin(unknown, ", ")),
         Style::kDim});
  }
  row->child_run_ids = std::move(child_run_ids);
}

// The child runs carrying out the tasks of each phase (pattern phases: one
// per task, a map's in item order), by phase id.
absl::flat_hash_map<std::string, std::vector<std::string>> ChildRunsByPhase(const v1::Run& run) {
  absl::flat_hash_map<std::string, std::vector<const v1::Task*>> tasks;
  for (const v1::Task& task : run.tasks()) {
    if (!task.child_run_id().empty()) tasks[task.phase_id()].push_back(&task);
  }
  absl::flat_hash_map<std::string, std::vector<std::string>> children;
  for (auto& [phase_id, phase_tasks] : tasks) {
    std::stable_sort(
        phase_tasks.begin(), phase_tasks.end(),
        [](const v1::Task* a, const v1::Task* b) { return a->item_index() < b->item_index(); });
    for (const v1::Task* task : phase_tasks) children[phase_id].push_back(task->child_run_id());
  }
  return children;
}

// Rows in layer order with rails; ids missing from `layers` (a snapshot that
// disagrees with its spec) follow in a blank-gutter group, as pi-taskflow's
// safety net does.
template <typename MakeRow>
std::vector<Row> LayeredRows(const Layers& layers, const std::vector<absl::string_view>& all_ids,
                             const MakeRow& make_row) {
  std::vector<Row> rows;
  rows.reserve(all_ids.size());
  absl::flat_hash_set<absl::string_view> shown;
  shown.reserve(all_ids.size());
  Layer previous;
  for (const std::vector<std::string>& layer : layers) {
    for (size_t j = 0; j < layer.size(); ++j) {
      rows.push_back(make_row(layer[j], previous));
      rows.back().rail = RailGlyph(j, layer.size());
      shown.insert(layer[j]);
    }
    previous = Layer(&layer);
  }
  for (absl::string_view id : all_ids) {
    if (shown.insert(id).second) rows.push_back(make_row(id, previous));
  }
  return rows;
}

// What `map` holds for `key`, or null.
template <typename Map>
typename Map::mapped_type Find(const Map& map, absl::string_view key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : it->second;
}

std::string PhaseAgent(const v1::Phase& phase) {
  if (!phase.agent().empty() || phase.type() != v1::PHASE_TYPE_PARALLEL) return phase.agent();
  std::vector<std::string> agents;
  for (const v1::Branch& branch : phase.branches()) {
    if (!branch.agent().empty() &&
        std::find(agents.begin(), agents.end(), branch.agent()) == agents.end()) {
      agents.push_back(branch.agent());
    }
  }
  return absl::StrJoin(agents, ",");
}

std::string FirstAgentOfPhase(absl::Span<const v1::Task* const> tasks) {
  for (const v1::Task* task : tasks) {
    if (!task->agent().empty()) return task->agent();
  }
  return "";
}

std::vector<Row> PhaseRows(const v1::Run& run, absl::Time now, const RenderOptions& options) {
  const v1::TaskflowSpec* flow = run.spec().has_taskflow() ? &run.spec().taskflow() : nullptr;
  absl::flat_hash_map<absl::string_view, const v1::Phase*> specs;
  std::vector<absl::string_view> ids;
  if (flow != nullptr) {
    for (const v1::Phase& phase : flow->phases()) {
      specs[phase.id()] = &phase;
      ids.push_back(phase.id());
    }
  }
  absl::flat_hash_map<absl::string_view, const v1::PhaseStatus*> statuses;
  for (const v1::PhaseStatus& status : run.phases()) {
    statuses[status.phase_id()] = &status;
    ids.push_back(status.phase_id());
  }

  Layers layers;
  if (flow != nullptr) {
    layers = flow::PhaseLayers(*flow);
  } else {
    // No spec in the snapshot: the scheduler's own layer numbers.
    for (const v1::PhaseStatus& status : run.phases()) {
      // A phase sits at most one layer below the previous one: bound the
      // number, whatever the snapshot says.
      const size_t layer = static_cast<size_t>(std::clamp(status.layer(), 0, run.phases_size()));
      if (layers.size() <= layer) layers.resize(layer + 1);
      layers[layer].push_back(status.phase_id());
    }
    std::erase_if(layers, [](const auto& layer) { return layer.empty(); });
  }
  const absl::flat_hash_map<std::string, std::vector<std::string>> child_runs =
      ChildRunsByPhase(run);
  const TasksByPhase tasks_by_phase(run);

  auto make_row = [&](absl::string_view id, const Layer& previous) {
    const v1::Phase* spec = Find(specs, id);
    v1::PhaseStatus status;
    if (const v1::PhaseStatus* known = Find(statuses, id); known != nullptr) {
      status = *known;
    } else {
      status.set_phase_id(std::string(id));
      status.set_type(spec != nullptr ? spec->type() : v1::PHASE_TYPE_AGENT);
      status.set_state(v1::TASK_STATE_PENDING);
    }
    Row row;
    row.icon = RowIcon(status.state(), PhaseIcon(status), options);
    row.icon_style =
        IconStyle(status.state(), GateBlocked(status.state(), status.has_gate(), status.gate()));
    row.pending = status.state() == v1::TASK_STATE_PENDING;
    row.id = std::string(id);
    row.kind = std::string(spec != nullptr ? flow::PhaseTypeSpelling(*spec)
                                           : flow::PhaseTypeName(status.type()));
    const absl::Span<const v1::Task* const> tasks = tasks_by_phase.Of(id);
    row.agent = spec != nullptr ? PhaseAgent(*spec) : FirstAgentOfPhase(tasks);
    const bool fans_out =
        status.type() == v1::PHASE_TYPE_MAP || status.type() == v1::PHASE_TYPE_PARALLEL;
    if (fans_out && status.items_total() > 0) {
      std::string progress = ProgressBar(status.items_done(), status.items_total());
      if (status.items_failed() > 0)
        absl::StrAppend(&progress, " · ", status.items_failed(), " failed");
      row.tail.push_back({progress, std::nullopt});
    }
    AddTiming(status.started_at(), status.finished_at(), now, &row.tail);
    AddUsage(status.usage(), &row.tail);
    if (options.tools != nullptr) AddToolCount(options.tools->OfPhase(tasks, id), &row.tail);
    if (spec != nullptr) AddEdges(flow::PhaseDependencies(*spec), previous, &row.tail);
    AddOutcome(PhaseOutcome(status, tasks), status.state(), &row.tail);
    AddApprovalWait(tasks, &row.tail);
    if (auto children = child_runs.find(id); children != child_runs.end()) {
      AddChildRuns(children->second, options, &row);
    }
    return row;
  };
  return LayeredRows(layers, ids, make_row);
}

// Board tasks (layered by the spec when the snapshot has it) and the tasks
// patterns plan at run time (layered by their deps).
// Defined below, outside the anonymous namespace.
}  // namespace
std::string DecisionText(absl::Span<const v1::Task* const> tasks);
namespace {

// A task the snapshot does not have yet.
const v1::Task& PendingTask() {
  static const v1::Task* const pending = [] {
    auto* task = new v1::Task;
    task->set_state(v1::TASK_STATE_PENDING);
    return task;
  }();
  return *pending;
}

std::vector<Row> TaskRows(const v1::Run& run, absl::Time now, const RenderOptions& options) {
  const v1::BoardSpec* board = run.spec().has_board() ? &run.spec().board() : nullptr;
  absl::flat_hash_map<absl::string_view, const v1::BoardTask*> specs;
  absl::flat_hash_map<absl::string_view, const v1::Task*> tasks;
  std::vector<absl::string_view> ids;
  std::vector<flow::DagNode> nodes;
  if (board != nullptr) {
    specs.reserve(board->tasks_size());
    for (const v1::BoardTask& task : board->tasks()) {
      specs[task.id()] = &task;
      ids.push_back(task.id());
    }
  }
  tasks.reserve(run.tasks_size());
  for (const v1::Task& task : run.tasks()) {
    // A board task is known by its board id, whichever field carries it.
    const std::string& id =
        board != nullptr && !specs.contains(task.task_id()) && specs.contains(task.phase_id())
            ? task.phase_id()
            : task.task_id();
    // A board's spec ids are listed already.
    if (tasks.try_emplace(id, &task).second && !specs.contains(id)) ids.push_back(id);
    // A board is layered by its spec; only planned tasks by their deps.
    if (board == nullptr) {
      nodes.push_back({id, std::vector<std::string>(task.deps().begin(), task.deps().end())});
    }
  }
  const Layers layers = board != nullptr ? BoardTaskLayers(*board) : flow::TopologicalLayers(nodes);

  auto make_row = [&](absl::string_view id, const Layer& previous) {
    const v1::BoardTask* spec = Find(specs, id);
    const v1::Task* found = Find(tasks, id);
    const v1::Task& task = found != nullptr ? *found : PendingTask();
    Row row;
    row.icon = RowIcon(task.state(),
                       GateBlocked(task.state(), task.has_gate(), task.gate())
                           ? kBlockedGateIcon
                           : TaskStateIcon(task.state()),
                       options);
    row.icon_style =
        IconStyle(task.state(), GateBlocked(task.state(), task.has_gate(), task.gate()));
    row.pending = task.state() == v1::TASK_STATE_PENDING;
    row.id = std::string(id);
    row.kind = board != nullptr || task.role().empty() ? "task" : task.role();
    row.agent = spec != nullptr && !spec->agent().empty() ? spec->agent() : task.agent();
    AddTiming(task.started_at(), task.finished_at(), now, &row.tail);
    AddUsage(task.usage(), &row.tail);
    if (options.tools != nullptr) AddToolCount(options.tools->OfTask(task.task_id()), &row.tail);
    if (task.attempt() > 1) row.tail.push_back({absl::StrCat("attempt ", task.attempt()), {}});
    AddEdges(spec != nullptr ? spec->deps() : task.deps(), previous, &row.tail);
    AddOutcome(TaskOutcome(task), task.state(), &row.tail);
    if (task.role() == "approval") {
      // A pattern's plan approval or human review: waiting, or who decided.
      const v1::Task* self[] = {&task};
      AddApprovalWait(self, &row.tail);
      AddOutcome(DecisionText(self), task.state(), &row.tail);
    }
    AddVerdict(task, &row.tail);
    if (!task.child_run_id().empty()) AddChildRuns({task.child_run_id()}, options, &row);
    if (board == nullptr && !task.title().empty()) {
      row.tail.push_back({OneLine(task.title()), Style::kDim});
    }
    return row;
  };
  return LayeredRows(layers, ids, make_row);
}

std::string KindName(const v1::Run& run) {
  if (run.kind() == v1::FLOW_KIND_UNSPECIFIED) return std::string(flow::FlowKindName(run.spec()));
  return RunKindName(run.kind());
}

std::vector<Row> RunRows(const v1::Run& run, absl::Time now, const RenderOptions& options) {
  return DrawnByPhases(run) ? PhaseRows(run, now, options) : TaskRows(run, now, options);
}

// Phases or tasks in state COMPLETED.
template <typename Items>
int CountCompleted(const Items& items) {
  return static_cast<int>(std::count_if(items.begin(), items.end(), [](const auto& item) {
    return item.state() == v1::TASK_STATE_COMPLETED;
  }));
}

// A pattern's iteration: how many evaluations (plan-and-execute) or review
// rounds (supervisor) have started; 0 before the first.
int Iteration(const v1::Run& run) {
  return static_cast<int>(std::count_if(run.tasks().begin(), run.tasks().end(), [](const auto& t) {
    return t.role() == "evaluator" || t.role() == "reviewer";
  }));
}

}  // namespace

bool DrawnByPhases(const v1::Run& run) {
  const flow::FlowKindInfo* recorded = flow::FindFlowKind(run.kind());
  const flow::FlowKindInfo* declared = flow::FindFlowKind(run.spec());
  if (recorded != nullptr && recorded->has_phases) return true;
  if (declared != nullptr && declared->has_phases) return true;
  // A run stored before runs recorded their kind: its phases tell.
  return run.kind() == v1::FLOW_KIND_UNSPECIFIED && run.phases_size() > 0;
}

std::string RunProgress(const v1::Run& run) {
  // What the spec declares (phases, board tasks); 0 when the snapshot has no
  // spec, as listings do, or for a pattern, whose tasks are planned.
  const flow::FlowKindInfo* declared = flow::FindFlowKind(run.spec());
  const int declared_tasks = declared == nullptr ? 0 : declared->declared_bounds(run.spec()).tasks;
  if (DrawnByPhases(run)) {
    const int total =
        declared != nullptr && declared->has_phases ? declared_tasks : run.phases_size();
    const int done = CountCompleted(run.phases());
    return absl::StrCat(done, "/", total, total == 1 ? " phase" : " phases");
  }
  // Count completed tasks against the board's spec when the snapshot has
  // them: the run's own counters cover only the tasks created so far and
  // count every finished task, failed ones included. Listings carry no tasks.
  int total = std::max(run.tasks_total(), run.tasks_size());
  total = std::max(total, declared_tasks);
  const int done = run.tasks().empty() ? run.tasks_done() : CountCompleted(run.tasks());
  return absl::StrCat(done, "/", total, total == 1 ? " task" : " tasks");
}

absl::string_view PhaseIcon(const v1::PhaseStatus& phase) {
  return GateBlocked(phase.state(), phase.has_gate(), phase.gate()) ? kBlockedGateIcon
                                                                    : TaskStateIcon(phase.state());
}

std::string TaskOutcome(const v1::Task& task) {
  switch (task.state()) {
    case v1::TASK_STATE_COMPLETED:
      if (task.has_gate()) return GateText(task.gate());
      return task.reused() ? "reused" : "";
    case v1::TASK_STATE_SKIPPED:
      return WithReason("skipped", task.skip_reason());
    case v1::TASK_STATE_FAILED:
      return WithReason("failed", task.error());
    default:
      return "";
  }
}

// A decided approval: what was decided and by whom (its gate verdict would
// only say PASS or BLOCK).
std::string DecisionText(absl::Span<const v1::Task* const> tasks) {
  for (const v1::Task* task : tasks) {
    if (!task->approval().has_decision()) continue;
    const v1::ApprovalDecision& decision = task->approval().decision();
    const std::string verb = decision.decision() == "approve"  ? "approved"
                             : decision.decision() == "reject" ? "rejected"
                                                               : decision.decision();
    return WithReason(absl::StrCat(verb, " by ", decision.decided_by()), decision.comment());
  }
  return "";
}

std::string PhaseOutcome(const v1::PhaseStatus& phase, absl::Span<const v1::Task* const> tasks) {
  switch (phase.state()) {
    case v1::TASK_STATE_COMPLETED: {
      // An approval phase, or a gate a person decided.
      if (phase.type() == v1::PHASE_TYPE_APPROVAL || phase.type() == v1::PHASE_TYPE_GATE) {
        if (std::string decided = DecisionText(tasks); !decided.empty()) return decided;
      }
      if (phase.has_gate()) return GateText(phase.gate());
      const bool reused =
          !tasks.empty() &&
          std::all_of(tasks.begin(), tasks.end(), [](const v1::Task* t) { return t->reused(); });
      return reused ? "reused" : "";
    }
    case v1::TASK_STATE_SKIPPED:
      return WithReason("skipped", phase.skip_reason());
    case v1::TASK_STATE_FAILED:
      for (const v1::Task* task : tasks) {
        if (task->state() == v1::TASK_STATE_FAILED && !task->error().empty()) {
          return WithReason("failed", task->error());
        }
      }
      return "failed";
    default:
      return "";
  }
}

std::string RenderRunHeader(const v1::Run& run, absl::Time now, const RenderOptions& options) {
  const bool running = run.status() == v1::RUN_STATUS_RUNNING;
  const absl::string_view icon = running && options.spinner_frame >= 0
                                     ? Spinner(options.spinner_frame)
                                     : RunStatusIcon(run.status());
  std::string status = RunStatusName(run.status());
  if (!run.board_meta().empty() && !DrawnByPhases(run)) {
    const int iteration = Iteration(run);
    absl::StrAppend(&status, " (", run.board_meta(),
                    iteration > 0 ? absl::StrCat(", iteration ", iteration) : "", ")");
  }
  std::vector<std::string> parts = {RunProgress(run), status};
  if (std::string usage = FormatUsage(run.usage()); !usage.empty()) parts.push_back(usage);
  if (std::optional<absl::Duration> elapsed = Elapsed(run.created_at(), run.finished_at(), now)) {
    parts.push_back(FormatElapsed(*elapsed));
  }
  if (options.tools != nullptr && options.tools->total().calls > 0) {
    const ToolCount& tools = options.tools->total();
    parts.push_back(absl::StrCat("tools ", tools.calls));
    if (tools.cached > 0) parts.push_back(absl::StrCat("cached ", tools.cached));
  }
  if (!run.run_id().empty()) parts.push_back(absl::StrCat("run ", run.run_id()));
  const std::string& name = run.flow_name().empty() ? run.spec().name() : run.flow_name();
  const std::string line =
      absl::StrCat(Paint(icon, RunStyle(run.status()), options.color), " ", KindName(run), " ",
                   Paint(name, Style::kBold, options.color), "  ", absl::StrJoin(parts, " · "));
  return FitToWidth(line, options.width);
}

std::string RenderRun(const v1::Run& run, absl::Time now, const RenderOptions& options) {
  std::string frame = absl::StrCat(RenderRunHeader(run, now, options), "\n");
  AppendRows(RunRows(run, now, options), now, options, "", &frame);
  return frame;
}

}  // namespace taskboard::cli
