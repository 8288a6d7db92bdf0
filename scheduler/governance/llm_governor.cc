#include "scheduler/governance/llm_governor.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace taskboard::governance {
namespace {

// Half of the second a provider's bucket holds (rate_bucket.h): the other
// half absorbs calls that reach the provider late or out of order.
constexpr absl::Duration kBurst = absl::Milliseconds(500);
// After a 429: how long the model runs slower once its Retry-After passed,
// and how slow it may get.
constexpr absl::Duration kSlowWindow = absl::Minutes(1);
constexpr double kMinFactor = 1.0 / 8;
// A 429 without Retry-After pauses the model this long.
constexpr absl::Duration kDefaultRetryAfter = absl::Seconds(1);

}  // namespace

// The limits of one model, or one tenant's share of one model.
struct LlmGovernor::Limiter {
  ModelLimits configured;
  std::optional<RateBucket> rpm;
  std::optional<RateBucket> tpm;
  int in_flight = 0;
  // After a 429 (model limiters only).
  absl::Time paused_until = absl::InfinitePast();
  absl::Time slow_until = absl::InfinitePast();
  double factor = 1.0;

  void Configure(const ModelLimits& limits) {
    const bool same = limits.rpm == configured.rpm && limits.tpm == configured.tpm;
    configured = limits;
    if (same && (rpm.has_value() || tpm.has_value() || (limits.rpm == 0 && limits.tpm == 0))) {
      return;
    }
    rpm.reset();
    tpm.reset();
    if (limits.rpm > 0) rpm.emplace(limits.rpm * factor, kBurst);
    if (limits.tpm > 0) tpm.emplace(limits.tpm * factor, kBurst);
  }

  void SetFactor(double value) {
    factor = value;
    if (rpm) rpm->SetRate(configured.rpm * factor);
    if (tpm) tpm->SetRate(configured.tpm * factor);
  }

  // Ends a slow window that has passed.
  void Recover(absl::Time now) {
    if (factor < 1.0 && now >= slow_until) SetFactor(1.0);
  }

  absl::Duration WaitFor(absl::Time now) {
    Recover(now);
    if (configured.concurrency > 0 && in_flight >= configured.concurrency) {
      return absl::InfiniteDuration();
    }
    absl::Duration wait = std::max(paused_until - now, absl::ZeroDuration());
    if (rpm) wait = std::max(wait, rpm->WaitFor(now));
    if (tpm) wait = std::max(wait, tpm->WaitFor(now));
    return wait;
  }

  void Take(int64_t tokens, absl::Time now) {
    if (rpm) rpm->Take(now, 1);
    if (tpm) tpm->Take(now, static_cast<double>(tokens));
    ++in_flight;
  }

  // A 429 for a call granted at `granted_at`. Calls granted before the
  // last slow-down were sent at the old rate: their 429s extend the pause
  // but do not halve the rate again, so one burst halves it once.
  void Throttle(absl::Duration retry_after, absl::Time granted_at, absl::Time now) {
    paused_until = std::max(paused_until, now + retry_after);
    slow_until = paused_until + kSlowWindow;
    if (granted_at >= throttled_at) {
      SetFactor(std::max(factor / 2, kMinFactor));
      throttled_at = now;
    }
  }
  absl::Time throttled_at = absl::InfinitePast();
};

// Waiting asks of every model: by priority (highest first), tenant, run.
struct LlmGovernor::Waiting {
  struct Entry {
    GrantAsk ask;
    absl::Time asked_at;
  };
  using Runs = std::map<std::string, std::deque<Entry>>;
  using Tenants = std::map<std::string, Runs>;
  using Levels = std::map<int32_t, Tenants, std::greater<>>;
  absl::flat_hash_map<std::string, Levels> by_model;
  // When each tenant / run was last granted a call (a grant counter), for
  // round-robin: the least recently served goes first.
  absl::flat_hash_map<std::string, uint64_t> tenant_served;
  absl::flat_hash_map<std::string, uint64_t> run_served;
  uint64_t served = 0;
};

std::string LlmGovernor::ShareKey(const std::string& tenant, const std::string& model) {
  return absl::StrCat(tenant, absl::string_view("\0", 1), model);
}

LlmGovernor::LlmGovernor(LlmLimits limits)
    : limits_(std::move(limits)), waiting_asks_(std::make_unique<Waiting>()) {
  absl::BitGen random;
  grant_prefix_ = absl::StrFormat("g%08x-", absl::Uniform<uint32_t>(random));
}

LlmGovernor::~LlmGovernor() = default;

LlmGovernor::Limiter& LlmGovernor::ModelLimiter(const std::string& model) {
  std::unique_ptr<Limiter>& limiter = models_[model];
  if (limiter == nullptr) {
    limiter = std::make_unique<Limiter>();
    auto configured = limits_.models.find(model);
    if (configured != limits_.models.end()) limiter->Configure(configured->second);
  }
  return *limiter;
}

LlmGovernor::Limiter* LlmGovernor::TenantLimiter(const std::string& tenant,
                                                 const std::string& model) {
  auto policy = limits_.tenants.find(tenant);
  if (policy == limits_.tenants.end()) return nullptr;
  auto share = policy->second.models.find(model);
  if (share == policy->second.models.end()) return nullptr;
  std::unique_ptr<Limiter>& limiter = tenant_models_[ShareKey(tenant, model)];
  if (limiter == nullptr) {
    limiter = std::make_unique<Limiter>();
    limiter->Configure(share->second);
  }
  return limiter.get();
}

void LlmGovernor::SetLimits(LlmLimits limits, absl::Time now) {
  limits_ = std::move(limits);
  for (auto& [model, limiter] : models_) {
    auto configured = limits_.models.find(model);
    limiter->Configure(configured != limits_.models.end() ? configured->second : ModelLimits{});
  }
  for (auto& [key, limiter] : tenant_models_) {
    const size_t split = key.find('\0');
    const std::string tenant = key.substr(0, split);
    const std::string model = key.substr(split + 1);
    ModelLimits share;
    if (auto policy = limits_.tenants.find(tenant); policy != limits_.tenants.end()) {
      if (auto found = policy->second.models.find(model); found != policy->second.models.end()) {
        share = found->second;
      }
    }
    limiter->Configure(share);
  }
  if (waiting_ > 0) next_wake_ = now;
}

absl::Duration LlmGovernor::WaitFor(const GrantAsk& ask, absl::Time now) {
  absl::Duration wait = ModelLimiter(ask.model).WaitFor(now);
  if (Limiter* share = TenantLimiter(ask.tenant, ask.model); share != nullptr) {
    wait = std::max(wait, share->WaitFor(now));
  }
  return wait;
}

Granted LlmGovernor::Grant(GrantAsk ask, absl::Time asked_at, absl::Time now) {
  ModelLimiter(ask.model).Take(ask.tokens, now);
  if (Limiter* share = TenantLimiter(ask.tenant, ask.model); share != nullptr) {
    share->Take(ask.tokens, now);
  }
  Waiting& waiting = *waiting_asks_;
  waiting.tenant_served[ask.tenant] = ++waiting.served;
  Granted granted;
  granted.stream_id = ask.stream_id;
  granted.request_id = std::move(ask.request_id);
  granted.grant_id = absl::StrCat(grant_prefix_, next_grant_++);
  granted.model = ask.model;
  granted.waited = now - asked_at;
  GrantRecord& record = grants_[granted.grant_id];
  record.model = ask.model;
  record.tenant = std::move(ask.tenant);
  record.lease_id = std::move(ask.lease_id);
  record.stream_id = ask.stream_id;
  record.tokens = ask.tokens;
  record.usd = ask.usd;
  record.accounts = std::move(ask.accounts);
  record.granted_at = now;
  return granted;
}

void LlmGovernor::Reserve(const GrantAsk& ask, int sign) {
  for (const std::string& account : ask.accounts) {
    Spend& spend = reserved_[account];
    spend.tokens += sign * ask.tokens;
    spend.usd += sign * ask.usd;
    if (sign < 0 && spend.tokens <= 0 && spend.usd <= 1e-12) reserved_.erase(account);
  }
}

bool LlmGovernor::Admit(const std::string& model, size_t max_models) {
  if (models_.contains(model) || limits_.models.contains(model)) return true;
  if (models_.size() >= max_models) return false;
  ModelLimiter(model);
  return true;
}

Spend LlmGovernor::Reserved(const std::string& account) const {
  auto it = reserved_.find(account);
  return it != reserved_.end() ? it->second : Spend{};
}

std::optional<Granted> LlmGovernor::Ask(GrantAsk ask, absl::Time now) {
  // One call never reserves more than a minute of the model's tokens: it
  // would hold the bucket for everyone far longer than any real call.
  if (auto limits = limits_.models.find(ask.model);
      limits != limits_.models.end() && limits->second.tpm > 0) {
    ask.tokens = std::min<int64_t>(ask.tokens, static_cast<int64_t>(limits->second.tpm));
  }
  Reserve(ask, +1);
  CountLeaseCall(ask.lease_id, +1);
  Waiting& waiting = *waiting_asks_;
  auto queued = waiting.by_model.find(ask.model);
  // Others already wait for this model: the ask takes its turn behind them.
  const bool others_wait = queued != waiting.by_model.end() && !queued->second.empty();
  const absl::Duration wait = WaitFor(ask, now);
  if (wait == absl::ZeroDuration()) {
    if (!others_wait) return Grant(std::move(ask), now, now);
    // Room, but others wait (held by their tenant's share, or granted at
    // the next Tick): Tick picks fairly among all of them.
    next_wake_ = std::min(next_wake_, now);
  } else if (wait != absl::InfiniteDuration()) {
    next_wake_ = std::min(next_wake_, now + wait);
  }
  const std::string model = ask.model;
  const int32_t priority = ask.priority;
  const std::string tenant = ask.tenant;
  const std::string run = ask.run_id;
  waiting.by_model[model][priority][tenant][run].push_back({std::move(ask), now});
  ++waiting_;
  return std::nullopt;
}

std::vector<Granted> LlmGovernor::Tick(absl::Time now) {
  std::vector<Granted> granted;
  Waiting& waiting = *waiting_asks_;
  absl::Time wake = absl::InfiniteFuture();
  for (auto model_it = waiting.by_model.begin(); model_it != waiting.by_model.end();) {
    Waiting::Levels& levels = model_it->second;
    Limiter& limiter = ModelLimiter(model_it->first);
    while (!levels.empty()) {
      const absl::Duration model_wait = limiter.WaitFor(now);
      if (model_wait > absl::ZeroDuration()) {
        if (model_wait != absl::InfiniteDuration()) wake = std::min(wake, now + model_wait);
        break;
      }
      // The highest priority with a tenant whose own share has room; in
      // it, the tenant served least recently.
      Waiting::Tenants* tenants = nullptr;
      Waiting::Tenants::iterator chosen;
      for (auto& [priority, level] : levels) {
        for (auto tenant_it = level.begin(); tenant_it != level.end(); ++tenant_it) {
          Limiter* share = TenantLimiter(tenant_it->first, model_it->first);
          if (share != nullptr) {
            const absl::Duration wait = share->WaitFor(now);
            if (wait > absl::ZeroDuration()) {
              if (wait != absl::InfiniteDuration()) wake = std::min(wake, now + wait);
              continue;
            }
          }
          if (tenants == nullptr ||
              waiting.tenant_served[tenant_it->first] < waiting.tenant_served[chosen->first]) {
            tenants = &level;
            chosen = tenant_it;
          }
        }
        if (tenants != nullptr) break;
      }
      if (tenants == nullptr) break;
      Waiting::Runs& runs = chosen->second;
      auto run_it = runs.begin();
      for (auto it = runs.begin(); it != runs.end(); ++it) {
        if (waiting.run_served[it->first] < waiting.run_served[run_it->first]) run_it = it;
      }
      Waiting::Entry entry = std::move(run_it->second.front());
      run_it->second.pop_front();
      --waiting_;
      // Round-robin between runs matters only while they wait: a run with
      // nothing waiting is forgotten, so the map stays bounded.
      if (run_it->second.empty()) {
        waiting.run_served.erase(run_it->first);
        runs.erase(run_it);
      } else {
        waiting.run_served[run_it->first] = waiting.served + 1;
      }
      if (runs.empty()) tenants->erase(chosen);
      for (auto level = levels.begin(); level != levels.end();) {
        level = level->second.empty() ? levels.erase(level) : std::next(level);
      }
      granted.push_back(Grant(std::move(entry.ask), entry.asked_at, now));
    }
    if (levels.empty()) {
      waiting.by_model.erase(model_it++);
    } else {
      ++model_it;
    }
  }
  next_wake_ = waiting_ > 0 ? wake : absl::InfiniteFuture();
  return granted;
}

void LlmGovernor::Free(const std::string& grant_id, const CallOutcome* outcome, absl::Time now) {
  auto it = grants_.find(grant_id);
  if (it == grants_.end()) return;
  GrantRecord grant = std::move(it->second);
  grants_.erase(it);
  GrantAsk reserved;
  reserved.tokens = grant.tokens;
  reserved.usd = grant.usd;
  reserved.accounts = std::move(grant.accounts);
  Reserve(reserved, -1);
  CountLeaseCall(grant.lease_id, -1);
  Limiter& model = ModelLimiter(grant.model);
  // The share the call was granted under, even if a reload removed it since.
  auto found = tenant_models_.find(ShareKey(grant.tenant, grant.model));
  Limiter* share = found != tenant_models_.end() ? found->second.get() : nullptr;
  for (Limiter* limiter : {&model, share}) {
    if (limiter == nullptr) continue;
    limiter->in_flight = std::max(0, limiter->in_flight - 1);
    if (outcome != nullptr && limiter->tpm) {
      // The reservation was an estimate: charge what the call really used.
      const int64_t used = outcome->input_tokens + outcome->output_tokens;
      limiter->tpm->Adjust(now, static_cast<double>(used - grant.tokens));
    }
  }
  if (outcome != nullptr && outcome->http_status == 429) {
    model.Throttle(
        outcome->retry_after > absl::ZeroDuration() ? outcome->retry_after : kDefaultRetryAfter,
        grant.granted_at, now);
  }
  if (waiting_ > 0) next_wake_ = std::min(next_wake_, now);
}

void LlmGovernor::Report(const std::string& grant_id, const CallOutcome& outcome, absl::Time now) {
  Free(grant_id, &outcome, now);
}

void LlmGovernor::Drop(const std::function<bool(const GrantAsk&)>& matches) {
  Waiting& waiting = *waiting_asks_;
  for (auto& [model, levels] : waiting.by_model) {
    for (auto& [priority, tenants] : levels) {
      for (auto& [tenant, runs] : tenants) {
        for (auto& [run, entries] : runs) {
          const size_t before = entries.size();
          entries.erase(std::remove_if(entries.begin(), entries.end(),
                                       [&](const Waiting::Entry& e) {
                                         if (!matches(e.ask)) return false;
                                         Reserve(e.ask, -1);
                                         CountLeaseCall(e.ask.lease_id, -1);
                                         return true;
                                       }),
                        entries.end());
          waiting_ -= before - entries.size();
        }
        std::erase_if(runs, [](const auto& entry) { return entry.second.empty(); });
      }
      std::erase_if(tenants, [](const auto& entry) { return entry.second.empty(); });
    }
    std::erase_if(levels, [](const auto& entry) { return entry.second.empty(); });
  }
  absl::erase_if(waiting.by_model, [](const auto& entry) { return entry.second.empty(); });
}

void LlmGovernor::Release(const std::function<bool(const GrantAsk&)>& matches, absl::Time now) {
  Drop(matches);
  std::vector<std::string> held;
  for (const auto& [id, grant] : grants_) {
    GrantAsk granted;
    granted.lease_id = grant.lease_id;
    granted.stream_id = grant.stream_id;
    if (matches(granted)) held.push_back(id);
  }
  for (const std::string& id : held) Free(id, nullptr, now);
}

void LlmGovernor::ReleaseLease(const std::string& lease_id, absl::Time now) {
  // Most leases never asked (no-op and command agents): nothing to scan.
  if (LeaseCalls(lease_id) == 0) return;
  Release([&lease_id](const GrantAsk& ask) { return ask.lease_id == lease_id; }, now);
}

void LlmGovernor::ReleaseStream(uint64_t stream_id, absl::Time now) {
  if (waiting_ == 0 && grants_.empty()) return;
  Release([stream_id](const GrantAsk& ask) { return ask.stream_id == stream_id; }, now);
}

void LlmGovernor::CountLeaseCall(const std::string& lease_id, int delta) {
  auto it = lease_calls_.find(lease_id);
  if (delta > 0) {
    lease_calls_[lease_id] += static_cast<size_t>(delta);
  } else if (it != lease_calls_.end() && (it->second -= 1) == 0) {
    lease_calls_.erase(it);
  }
}

size_t LlmGovernor::LeaseCalls(const std::string& lease_id) const {
  auto it = lease_calls_.find(lease_id);
  return it != lease_calls_.end() ? it->second : 0;
}

void LlmGovernor::Refresh(absl::Time now) {
  for (auto& [model, limiter] : models_) limiter->Recover(now);
}

std::vector<ModelState> LlmGovernor::Models() const {
  std::map<std::string, ModelState> states;
  for (const auto& [model, limits] : limits_.models) {
    ModelState& state = states[model];
    state.rpm = limits.rpm;
    state.tpm = limits.tpm;
    state.concurrency = limits.concurrency;
  }
  for (const auto& [model, limiter] : models_) {
    ModelState& state = states[model];
    state.rpm = limiter->configured.rpm * limiter->factor;
    state.tpm = limiter->configured.tpm * limiter->factor;
    state.concurrency = limiter->configured.concurrency;
    state.in_flight = limiter->in_flight;
  }
  for (const auto& [model, levels] : waiting_asks_->by_model) {
    for (const auto& [priority, tenants] : levels) {
      for (const auto& [tenant, runs] : tenants) {
        for (const auto& [run, entries] : runs) {
          states[model].waiting += static_cast<int>(entries.size());
        }
      }
    }
  }
  std::vector<ModelState> result;
  for (auto& [model, state] : states) {
    state.model = model;
    result.push_back(std::move(state));
  }
  return result;
}

}  // namespace taskboard::governance
