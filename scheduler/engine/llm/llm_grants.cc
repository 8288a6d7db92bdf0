#include "scheduler/engine/llm/llm_grants.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/llm_call_usage.h"
#include "common/log/log.h"
#include "scheduler/engine/runs/run_reader.h"
#include "scheduler/engine/state/run_control.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/governance/budget.h"
#include "scheduler/governance/tenant_budget_report.h"
#include "scheduler/governance/usage_sum.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

std::string RunAccount(const std::string& run_id) { return absl::StrCat("run/", run_id); }
std::string TenantAccount(const std::string& tenant) { return absl::StrCat("tenant/", tenant); }

governance::Spend Billed(const v1::Run& run) {
  return {governance::BudgetTokens(run.billed()), run.billed().cost_usd()};
}

// Model names become metric labels and map keys: bounded and printable.
constexpr size_t kMaxModelName = 200;
// Model calls one task may have waiting or running at once.
constexpr size_t kMaxCallsPerLease = 64;
// Distinct models the governor tracks; a worker naming more is refused.
constexpr size_t kMaxModels = 1'000;

absl::Status CheckModelName(absl::string_view model) {
  if (model.empty() || model.size() > kMaxModelName) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model name must have 1 to ", kMaxModelName, " characters, got ",
                     model.size(), ": check the agent file's `model` or OPENAI_MODEL"));
  }
  for (char c : model) {
    if (c < 0x21 || c > 0x7e) {
      return absl::InvalidArgumentError(
          "the model name may hold only printable ASCII without spaces: check the agent file's "
          "`model` or OPENAI_MODEL");
    }
  }
  return absl::OkStatus();
}

// The longest a provider's Retry-After may pause a model for everyone.
constexpr int64_t kMaxRetryAfterMs = 5 * 60 * 1000;
std::string Month(absl::Time now) {
  return governance::PeriodOf(governance::BudgetPeriod::kMonth, now);
}

}  // namespace

LlmGrants::LlmGrants(Options options, LoopBatch* batch, ActiveRuns* runs,
                     const Retention* retention, LeaseKeeper* leases, WorkerStreams* streams,
                     LeaseRevoker* revoker)
    : store_(options.store),
      rpc_store_(options.rpc_store),
      metrics_(options.metrics),
      batch_(batch),
      runs_(runs),
      retention_(retention),
      leases_(leases),
      streams_(streams),
      revoker_(revoker),
      governor_(std::move(options.limits)) {
  PublishBudgets(governor_.limits());
}

void LlmGrants::PublishBudgets(const governance::LlmLimits& limits) {
  std::map<std::string, governance::TenantBudget> budgets;
  for (const auto& [tenant, policy] : limits.tenants) {
    if (policy.budget.has_value()) budgets.emplace(tenant, *policy.budget);
  }
  absl::MutexLock lock(&budgets_mu_);
  budgets_ = std::move(budgets);
}

void LlmGrants::SetLimits(governance::LlmLimits limits) {
  governor_.SetLimits(std::move(limits), batch_->now());
  PublishBudgets(governor_.limits());
  log::Info("llm limits reloaded").With("models", governor_.limits().models.size());
}

void LlmGrants::Refuse(uint64_t stream_id, const std::string& request_id,
                       const std::string& error) {
  v1::ConnectResponse reply;
  v1::LlmGrant& grant = *reply.mutable_llm_grant();
  grant.set_request_id(request_id);
  grant.set_granted(false);
  grant.set_error(error);
  streams_->SendTo(stream_id, std::move(reply));
}

void LlmGrants::Send(const governance::Granted& granted) {
  v1::ConnectResponse reply;
  v1::LlmGrant& grant = *reply.mutable_llm_grant();
  grant.set_request_id(granted.request_id);
  grant.set_granted(true);
  grant.set_grant_id(granted.grant_id);
  streams_->SendTo(granted.stream_id, std::move(reply));
  if (metrics_ != nullptr) metrics_->Granted(granted.model, granted.waited);
}

void LlmGrants::OnGrantRequest(uint64_t stream_id, const v1::LlmGrantRequest& request) {
  ActiveRun* active = leases_->CurrentRun(request.lease_id(), request.task_id());
  if (active == nullptr) {
    return Refuse(stream_id, request.request_id(),
                  absl::StrCat("task ", request.task_id(),
                               " no longer holds this lease (it was cancelled, timed out "
                               "or given to another worker): the call is not needed"));
  }
  if (absl::Status model = CheckModelName(request.model()); !model.ok()) {
    return Refuse(stream_id, request.request_id(), std::string(model.message()));
  }
  if (governor_.LeaseCalls(request.lease_id()) >= kMaxCallsPerLease) {
    return Refuse(stream_id, request.request_id(),
                  absl::StrCat("task ", request.task_id(), " already has ", kMaxCallsPerLease,
                               " model calls waiting or running: report those first"));
  }
  if (!governor_.Admit(request.model(), kMaxModels)) {
    return Refuse(stream_id, request.request_id(),
                  absl::StrCat("the scheduler already tracks ", kMaxModels,
                               " models; calls to another one are refused (list the "
                               "models you use in --llm-limits)"));
  }
  RunState& run = *active->state;
  const std::string& root_id = run.root_run_id();
  // The run and every active run above it: each holds the call's
  // reservation; the root's budget caps the tree, and its flow decides
  // priority and onBudget.
  const std::vector<ActiveRun*> chain = runs_->ChainUp(*active);
  const governance::LlmLimits& limits = governor_.limits();
  // A worker's estimates are bounded before any sum, so a hostile one
  // cannot overflow the arithmetic; the governor also caps what one call
  // reserves at the model's tokens per minute.
  const int64_t input = std::clamp<int64_t>(request.estimated_input_tokens(), 0, kMaxCallTokens);
  const int64_t output = request.max_output_tokens() > 0
                             ? std::min<int64_t>(request.max_output_tokens(), kMaxCallTokens)
                             : limits.default_output_tokens;
  const governance::Spend call{
      input + output, governance::PriceCall(limits, request.model(), input, output, 0).value_or(0)};

  // The root's budget caps the whole tree: a step flow's own `budget` is
  // not enforced, since a resume could not raise it (docs/llm-governance.md).
  const v1::Run& root_view = chain.back()->state->record().run();
  const governance::BudgetLimit limit{root_view.budget().tokens(), root_view.budget().usd()};
  if (limit.tokens > 0 || limit.usd > 0) {
    std::optional<std::string> over = governance::OverBudget(
        absl::StrCat("run ", root_view.run_id(), "'s budget"), limit, Billed(root_view),
        governor_.Reserved(RunAccount(root_view.run_id())), call,
        absl::StrCat("raise it with `taskboard resume ", root_id,
                     " --budget-usd X` or `--budget-tokens N`"));
    if (over.has_value()) return StopOnBudget(stream_id, request, run, "run", *over);
  }
  const std::string& tenant = run.record().tenant();
  if (auto policy = limits.tenants.find(tenant);
      policy != limits.tenants.end() && policy->second.budget.has_value()) {
    const governance::TenantBudget& budget = *policy->second.budget;
    const bool monthly = budget.period == governance::BudgetPeriod::kMonth;
    std::optional<std::string> over = governance::OverBudget(
        absl::StrCat("tenant ", tenant, monthly ? "'s monthly budget" : "'s daily budget"),
        {budget.tokens, budget.usd},
        usage_book_.TenantSpend(tenant, governance::PeriodOf(budget.period, batch_->now())),
        governor_.Reserved(TenantAccount(tenant)), call,
        absl::StrCat("it is set in the scheduler's --llm-limits file and starts again at the "
                     "next UTC ",
                     monthly ? "month" : "day"));
    if (over.has_value()) return StopOnBudget(stream_id, request, run, "tenant", *over);
  }

  governance::GrantAsk ask;
  ask.stream_id = stream_id;
  ask.request_id = request.request_id();
  ask.lease_id = request.lease_id();
  ask.model = request.model();
  ask.tokens = call.tokens;
  ask.usd = call.usd;
  ask.tenant = tenant;
  ask.run_id = root_id;
  ask.priority = chain.back()->spec->priority();
  ask.accounts = {TenantAccount(tenant)};
  for (ActiveRun* link : chain) ask.accounts.push_back(RunAccount(link->state->run_id()));
  if (std::optional<governance::Granted> granted = governor_.Ask(std::move(ask), batch_->now())) {
    Send(*granted);
  }
}

void LlmGrants::StopOnBudget(uint64_t stream_id, const v1::LlmGrantRequest& request,
                             RunState& asking, const std::string& scope,
                             const std::string& reason) {
  const std::string& root_id = asking.root_run_id();
  ActiveRun* root = runs_->Find(root_id);
  const bool pause = root != nullptr && root->spec->on_budget() != v1::ON_BUDGET_FAIL;
  if (metrics_ != nullptr) {
    metrics_->BudgetStop(scope, pause ? "pause" : "fail");
  }
  log::Warn("llm call over budget")
      .With("run_id", asking.run_id())
      .With("task_id", request.task_id())
      .With("action", pause ? "pause" : "fail")
      .With("reason", reason);
  Refuse(stream_id, request.request_id(), reason);
  // A root that ended earlier in this batch (paused by another call,
  // cancelled) stays as it ended.
  if (!pause || IsTerminal(root->state->record().run().status())) return;
  // The whole tree stops: the root ends paused, its children are cancelled
  // with it (AdvanceNested) and resumed with it.
  RunState& root_run = *root->state;
  revoker_->Revoke(PauseRunState(root_run, reason, batch_->now_ms()),
                   absl::StrCat("paused: ", reason));
  batch_->Touch(root_id);
}

void LlmGrants::OnCallReport(const v1::LlmCallReport& report) {
  governance::CallOutcome outcome;
  outcome.http_status = report.http_status();
  outcome.retry_after =
      absl::Milliseconds(std::clamp<int64_t>(report.retry_after_ms(), 0, kMaxRetryAfterMs));
  // The worker bounded the counts the same way where it parsed the answer
  // (common/llm_call_usage.h), so its task's usage shows what is billed here.
  outcome.input_tokens = CallTokens(report.input_tokens());
  outcome.output_tokens = CallTokens(report.output_tokens());
  // The grant is freed whatever else the report says.
  if (!report.grant_id().empty()) governor_.Report(report.grant_id(), outcome, batch_->now());
  // A grant handed back unused (no answer, no tokens) is not a call.
  if (outcome.http_status == 0 && outcome.input_tokens == 0 && outcome.output_tokens == 0) return;
  if (!CheckModelName(report.model()).ok() || !governor_.Admit(report.model(), kMaxModels)) {
    log::Warn("llm call report with a malformed or untracked model name ignored")
        .With("task_id", report.task_id());
    return;
  }

  v1::Usage usage;
  usage.set_input_tokens(outcome.input_tokens);
  usage.set_output_tokens(outcome.output_tokens);
  usage.set_cache_read_tokens(CallCachedTokens(report.cached_tokens(), outcome.input_tokens));
  usage.set_cost_usd(governance::PriceCall(governor_.limits(), report.model(), outcome.input_tokens,
                                           outcome.output_tokens, usage.cache_read_tokens())
                         .value_or(CallCostUsd(report.cost_usd())));
  usage.set_turns(1);
  usage.set_model(report.model());

  // Billed to the run and every run above it. A run that ended meanwhile
  // (paused with this call in flight, say) is billed in its stored record
  // at the end of the batch (BillEndedRuns), so a resume counts it.
  std::string tenant;
  bool found = false;
  std::string run_id = report.run_id();
  while (!run_id.empty()) {
    ActiveRun* active = runs_->Find(run_id);
    if (active == nullptr) break;
    RunState& run = *active->state;
    if (!found) tenant = run.record().tenant();
    found = true;
    AddUsage(*run.MutableRecord().mutable_run()->mutable_billed(), usage);
    batch_->Touch(run_id);
    run_id = run.record().run().parent_run_id();
  }
  if (!run_id.empty()) {
    absl::StatusOr<store::RunRecord> record = ReadRunRecord(*store_, run_id);
    if (record.ok()) {
      if (!found) tenant = record->tenant();
      AddUsage(late_bills_[run_id], usage);
    }
  }

  const absl::Time now = batch_->now();
  if (Month(now) != usage_month_) {
    usage_month_ = Month(now);
    usage_book_.ForgetBefore(usage_month_);
  }
  const governance::UsageKey key{governance::UtcDay(now), tenant, report.model()};
  const governance::UsageRow& row = usage_book_.Add(key, usage, report.http_status() == 429);
  store::LlmUsageRecord stored;
  stored.set_requests(row.requests);
  stored.set_rate_limited(row.rate_limited);
  *stored.mutable_usage() = row.usage;
  batch_->writes().Put(store::Column::kMeta, store::keys::LlmUsage(key.day, key.tenant, key.model),
                       stored.SerializeAsString());
  if (metrics_ != nullptr) {
    metrics_->CallBilled(report.model(), tenant, usage, report.http_status());
  }
}

void LlmGrants::BillEndedRuns() {
  for (auto& [first, usage] : late_bills_) {
    // Up the chain of stored records; a run active again (resumed in this
    // batch) takes it in memory instead.
    for (std::string run_id = first; !run_id.empty();) {
      if (ActiveRun* active = runs_->Find(run_id); active != nullptr) {
        AddUsage(*active->state->MutableRecord().mutable_run()->mutable_billed(), usage);
        batch_->Touch(run_id);
        break;
      }
      if (retention_->busy()) break;  // never write back what retention deletes
      absl::StatusOr<store::RunRecord> record = ReadRunRecord(*store_, run_id);
      if (!record.ok()) break;
      AddUsage(*record->mutable_run()->mutable_billed(), usage);
      batch_->writes().Put(store::Column::kRuns, store::keys::Run(run_id),
                           record->SerializeAsString());
      run_id = record->run().parent_run_id();
    }
  }
  late_bills_.clear();
}

void LlmGrants::GrantDue() {
  const absl::Time now = batch_->now();
  if (governor_.NextWake() <= now) {
    for (const governance::Granted& granted : governor_.Tick(now)) Send(granted);
  }
  if (metrics_ != nullptr && governor_.has_models()) {
    governor_.Refresh(now);
    metrics_->UpdateModels(governor_.Models());
  }
}

absl::Status LlmGrants::LoadUsage() {
  usage_month_ = Month(batch_->now());
  const std::string from = store::keys::LlmUsageFrom(usage_month_);
  return store_->Scan(
      store::Column::kMeta, from, store::keys::LlmUsageEnd(),
      [this](absl::string_view key, absl::string_view value) {
        std::optional<store::keys::LlmUsageKey> parsed = store::keys::ParseLlmUsage(key);
        store::LlmUsageRecord record;
        if (parsed.has_value() &&
            record.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          governance::UsageRow row;
          row.requests = record.requests();
          row.rate_limited = record.rate_limited();
          row.usage = record.usage();
          usage_book_.Load({parsed->day, parsed->tenant, parsed->model}, std::move(row));
        }
        return true;
      });
}

absl::StatusOr<std::vector<v1::UsageRow>> LlmGrants::ReadUsage(const std::string& tenant,
                                                               const std::string& since_day) const {
  std::vector<v1::UsageRow> rows;
  // Called on RPC threads: the store itself, not the loop's view of it.
  absl::Status scanned = rpc_store_->Scan(
      store::Column::kMeta, store::keys::LlmUsageFrom(since_day), store::keys::LlmUsageEnd(),
      [&](absl::string_view key, absl::string_view value) {
        std::optional<store::keys::LlmUsageKey> parsed = store::keys::ParseLlmUsage(key);
        if (!parsed.has_value() || (!tenant.empty() && parsed->tenant != tenant)) return true;
        store::LlmUsageRecord record;
        if (!record.ParseFromArray(value.data(), static_cast<int>(value.size()))) return true;
        v1::UsageRow& row = rows.emplace_back();
        row.set_tenant(parsed->tenant);
        row.set_model(parsed->model);
        row.set_day(parsed->day);
        row.set_requests(record.requests());
        row.set_rate_limited(record.rate_limited());
        *row.mutable_usage() = record.usage();
        return true;
      });
  if (!scanned.ok()) return scanned;
  return rows;
}

absl::StatusOr<std::vector<v1::TenantBudget>> LlmGrants::ReadTenantBudgets(
    const std::optional<std::string>& tenant, absl::Time now) const {
  std::map<std::string, governance::TenantBudget> budgets;
  {
    absl::MutexLock lock(&budgets_mu_);
    budgets = budgets_;
  }
  if (budgets.empty() || (tenant.has_value() && !budgets.contains(*tenant))) {
    return std::vector<v1::TenantBudget>();
  }
  absl::StatusOr<std::vector<v1::UsageRow>> rows =
      ReadUsage(tenant.value_or(""), governance::BudgetRowsFrom(now));
  if (!rows.ok()) return rows.status();
  return governance::TenantBudgetReport(budgets, tenant, *rows, now);
}

void LlmGrants::OnLeaseEnded(absl::string_view lease_id, const dispatch::Lease* was_held) {
  governor_.ReleaseLease(std::string(lease_id), batch_->now());
}

void LlmGrants::OnStreamClosed(uint64_t stream_id) {
  governor_.ReleaseStream(stream_id, batch_->now());
}

}  // namespace taskboard::engine
