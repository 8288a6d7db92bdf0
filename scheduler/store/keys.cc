#include "scheduler/store/keys.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace taskboard::store::keys {
namespace {

void AppendU32(std::string& out, uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(value >> shift));
}

void AppendU64(std::string& out, uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(value >> shift));
}

void AppendStr(std::string& out, absl::string_view value) {
  AppendU32(out, static_cast<uint32_t>(value.size()));
  out.append(value.data(), value.size());
}

std::string Str(absl::string_view value) {
  std::string out;
  AppendStr(out, value);
  return out;
}

// `tag` and the run id, then `index` if given: one record per index of a run
// (its phases, their items), listed in index order under the first form.
std::string Tagged(absl::string_view tag, absl::string_view run_id,
                   std::optional<uint64_t> index = std::nullopt) {
  std::string out(tag);
  AppendStr(out, run_id);
  if (index.has_value()) AppendU64(out, *index);
  return out;
}

// Reads from the front of `in`, advancing it; false when `in` is too short.
bool ReadU64(absl::string_view& in, uint64_t* value) {
  if (in.size() < 8) return false;
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  in.remove_prefix(8);
  *value = v;
  return true;
}

bool ReadStr(absl::string_view& in, std::string* value) {
  if (in.size() < 4) return false;
  uint32_t length = 0;
  for (int i = 0; i < 4; ++i) length = (length << 8) | static_cast<unsigned char>(in[i]);
  in.remove_prefix(4);
  if (in.size() < length) return false;
  value->assign(in.data(), length);
  in.remove_prefix(length);
  return true;
}

std::optional<SeqKey> ParseStrSeq(absl::string_view key, std::optional<char> tag) {
  SeqKey out;
  if (!ReadStr(key, &out.id)) return std::nullopt;
  if (tag.has_value()) {
    if (key.empty() || key.front() != *tag) return std::nullopt;
    key.remove_prefix(1);
  }
  if (!ReadU64(key, &out.seq) || !key.empty()) return std::nullopt;
  return out;
}

}  // namespace

std::string Run(absl::string_view run_id) { return Str(run_id); }

std::string Task(absl::string_view run_id, absl::string_view task_id) {
  std::string out = Str(run_id);
  AppendStr(out, task_id);
  return out;
}

std::string TasksOfRun(absl::string_view run_id) { return Str(run_id); }

std::string Event(absl::string_view run_id, uint64_t seq) {
  std::string out = Str(run_id);
  AppendU64(out, seq);
  return out;
}

bool TaskKeyLess(absl::string_view a, absl::string_view b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

std::string EventsOfRun(absl::string_view run_id) { return Str(run_id); }

std::string LedgerEntry(absl::string_view request_id, uint64_t seq) {
  std::string out = LedgerOfRequest(request_id);
  AppendU64(out, seq);
  return out;
}

std::string LedgerOfRequest(absl::string_view request_id) {
  std::string out = Str(request_id);
  out.push_back('S');
  return out;
}

std::string LedgerTaskIndex(absl::string_view request_id, absl::string_view task_id, uint64_t seq) {
  std::string out = LedgerIndexOfTask(request_id, task_id);
  AppendU64(out, seq);
  return out;
}

std::string LedgerIndexOfTask(absl::string_view request_id, absl::string_view task_id) {
  std::string out = Str(request_id);
  out.push_back('T');
  AppendStr(out, task_id);
  return out;
}

std::string LedgerTaskName(absl::string_view request_id, absl::string_view run_id,
                           absl::string_view task_id) {
  if (run_id.empty() || run_id == request_id) return std::string(task_id);
  return absl::StrCat(run_id, "/", task_id);
}

std::string Flow(absl::string_view tenant, absl::string_view name, uint64_t version) {
  std::string out = FlowVersions(tenant, name);
  AppendU64(out, version);
  return out;
}

std::string FlowVersions(absl::string_view tenant, absl::string_view name) {
  std::string out = Str(tenant);
  AppendStr(out, name);
  return out;
}

std::string TenantFlows(absl::string_view tenant) { return Str(tenant); }

std::string LegacyFlow(absl::string_view stored_name, uint64_t version) {
  std::string out = Str(stored_name);
  AppendU64(out, version);
  return out;
}

std::string Cache(absl::string_view scope_key) { return Str(scope_key); }

std::string RunSpec(absl::string_view run_id) { return absl::StrCat("run-spec/", run_id); }

std::string RunPhases(absl::string_view run_id) { return Tagged("run-phase/", run_id); }

std::string RunPhase(absl::string_view run_id, uint64_t index) {
  return Tagged("run-phase/", run_id, index);
}

std::string RunPhaseItemsOfRun(absl::string_view run_id) {
  return Tagged("run-phase-items/", run_id);
}

std::string RunPhaseItems(absl::string_view run_id, uint64_t index) {
  return Tagged("run-phase-items/", run_id, index);
}

std::string PriorWork(absl::string_view run_id, absl::string_view task_id) {
  return absl::StrCat("prior-work/", Task(run_id, task_id));
}

std::string PriorWorkOfRun(absl::string_view run_id) {
  return absl::StrCat("prior-work/", Str(run_id));
}

std::string LedgerKeysOfRequest(absl::string_view request_id) { return Str(request_id); }

std::string FinishedRuns() { return "finished/"; }

std::string FinishedRun(int64_t finished_ms, absl::string_view run_id) {
  std::string out = FinishedRuns();
  AppendU64(out, static_cast<uint64_t>(std::max<int64_t>(finished_ms, 0)));
  AppendStr(out, run_id);
  return out;
}

std::string TenantRuns(absl::string_view tenant) {
  std::string out = "tenant-runs/";
  AppendStr(out, tenant);
  return out;
}

std::string TenantRun(absl::string_view tenant, absl::string_view run_id) {
  std::string out = TenantRuns(tenant);
  AppendStr(out, run_id);
  return out;
}

std::optional<std::string> ParseTenantRun(absl::string_view tenant, absl::string_view key) {
  if (!absl::ConsumePrefix(&key, TenantRuns(tenant))) return std::nullopt;
  std::string run_id;
  if (!ReadStr(key, &run_id) || !key.empty()) return std::nullopt;
  return run_id;
}

std::string RunIndexesBuilt() { return "run-indexes"; }

std::string FlowKeysByTenant() { return "flow-keys-by-tenant"; }

std::string LlmUsage(absl::string_view day, absl::string_view tenant, absl::string_view model) {
  return absl::StrCat("llm-usage/", day, "/", Str(tenant), Str(model));
}

std::string LlmUsageFrom(absl::string_view day_or_month) {
  return absl::StrCat("llm-usage/", day_or_month);
}

// '0' sorts right after '/', the end of every "llm-usage/" key.
std::string LlmUsageEnd() { return "llm-usage0"; }

std::optional<LlmUsageKey> ParseLlmUsage(absl::string_view key) {
  if (!absl::ConsumePrefix(&key, "llm-usage/")) return std::nullopt;
  const size_t slash = key.find('/');
  if (slash == absl::string_view::npos) return std::nullopt;
  LlmUsageKey out;
  out.day = std::string(key.substr(0, slash));
  key.remove_prefix(slash + 1);
  if (!ReadStr(key, &out.tenant) || !ReadStr(key, &out.model) || !key.empty()) {
    return std::nullopt;
  }
  return out;
}

std::string AuditRecord(absl::string_view tenant, uint64_t micros) {
  std::string out = AuditRecordsOfTenant(tenant);
  AppendU64(out, micros);
  return out;
}

std::string AuditRecordsOfTenant(absl::string_view tenant) {
  std::string out = "audit/";
  AppendStr(out, tenant);
  return out;
}

std::string AuditByTime(uint64_t micros, absl::string_view tenant) {
  std::string out = AuditTimeIndex();
  AppendU64(out, micros);
  AppendStr(out, tenant);
  return out;
}

std::string AuditTimeIndex() { return "audit-time/"; }

std::optional<AuditKey> ParseAuditRecord(absl::string_view key) {
  AuditKey out;
  if (!absl::ConsumePrefix(&key, "audit/") || !ReadStr(key, &out.tenant) ||
      !ReadU64(key, &out.micros) || !key.empty()) {
    return std::nullopt;
  }
  return out;
}

std::optional<AuditKey> ParseAuditByTime(absl::string_view key) {
  AuditKey out;
  if (!absl::ConsumePrefix(&key, AuditTimeIndex()) || !ReadU64(key, &out.micros) ||
      !ReadStr(key, &out.tenant) || !key.empty()) {
    return std::nullopt;
  }
  return out;
}

std::optional<FinishedKey> ParseFinishedRun(absl::string_view key) {
  if (!absl::ConsumePrefix(&key, FinishedRuns())) return std::nullopt;
  uint64_t ms = 0;
  FinishedKey out;
  if (!ReadU64(key, &ms) || !ReadStr(key, &out.run_id) || !key.empty()) return std::nullopt;
  out.finished_ms = static_cast<int64_t>(ms);
  return out;
}

std::string Schedule(absl::string_view tenant, absl::string_view name) {
  std::string out = TenantSchedules(tenant);
  AppendStr(out, name);
  return out;
}

std::string TenantSchedules(absl::string_view tenant) {
  std::string out = AllSchedules();
  AppendStr(out, tenant);
  return out;
}

std::string AllSchedules() { return "schedule/"; }

std::string Trigger(absl::string_view tenant, absl::string_view name) {
  std::string out = AllTriggers();
  AppendStr(out, tenant);
  AppendStr(out, name);
  return out;
}

std::string AllTriggers() { return "trigger/"; }
std::string RunStateOfTenant(absl::string_view tenant) {
  std::string out = "run-state/";
  AppendStr(out, tenant);
  return out;
}

std::string RunStateOfRun(absl::string_view tenant, absl::string_view root_run_id) {
  std::string out = RunStateOfTenant(tenant);
  AppendStr(out, root_run_id);
  return out;
}

std::string RunStateEntry(absl::string_view tenant, absl::string_view root_run_id,
                          absl::string_view space, absl::string_view key) {
  std::string out = RunStateOfRun(tenant, root_run_id);
  AppendStr(out, space);
  AppendStr(out, key);
  return out;
}

std::optional<RunStateKey> ParseRunStateEntry(absl::string_view key) {
  RunStateKey out;
  if (!absl::ConsumePrefix(&key, "run-state/") || !ReadStr(key, &out.tenant) ||
      !ReadStr(key, &out.root_run_id) || !ReadStr(key, &out.space) || !ReadStr(key, &out.key) ||
      !key.empty()) {
    return std::nullopt;
  }
  return out;
}

std::string Idempotency(absl::string_view idempotency_key) {
  return absl::StrCat("idempotency/", idempotency_key);
}

std::optional<TaskKey> ParseTask(absl::string_view key) {
  TaskKey out;
  if (!ReadStr(key, &out.run_id) || !ReadStr(key, &out.task_id) || !key.empty()) {
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> ParseRun(absl::string_view key) {
  std::string run_id;
  if (!ReadStr(key, &run_id) || !key.empty()) return std::nullopt;
  return run_id;
}

std::optional<SeqKey> ParseEvent(absl::string_view key) { return ParseStrSeq(key, std::nullopt); }

std::optional<SeqKey> ParseLedgerEntry(absl::string_view key) { return ParseStrSeq(key, 'S'); }

std::optional<FlowKey> ParseFlow(absl::string_view key) {
  FlowKey out;
  if (!ReadStr(key, &out.tenant) || !ReadStr(key, &out.name) || !ReadU64(key, &out.version) ||
      !key.empty()) {
    return std::nullopt;
  }
  return out;
}

std::optional<FlowKey> ParseLegacyFlow(absl::string_view key) {
  std::optional<SeqKey> parsed = ParseStrSeq(key, std::nullopt);
  if (!parsed) return std::nullopt;
  FlowKey out;
  out.version = parsed->seq;
  // Tenant names have no '/' and flow names none either.
  const size_t slash = parsed->id.find('/');
  if (slash == std::string::npos) {
    out.name = std::move(parsed->id);
  } else {
    out.tenant = parsed->id.substr(0, slash);
    out.name = parsed->id.substr(slash + 1);
  }
  return out;
}

std::optional<uint64_t> TrailingSeq(absl::string_view key) {
  if (key.size() < 8) return std::nullopt;
  absl::string_view tail = key.substr(key.size() - 8);
  uint64_t seq = 0;
  ReadU64(tail, &seq);
  return seq;
}

}  // namespace taskboard::store::keys
