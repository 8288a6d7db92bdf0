#ifndef TASKBOARD_SCHEDULER_STORE_KEYS_H_
#define TASKBOARD_SCHEDULER_STORE_KEYS_H_

// Key codecs of the store's columns. Keys are byte strings ordered
// lexicographically, so:
//   - string components are length-prefixed (4-byte big-endian length), which
//     keeps `run a` and `run ab` apart and makes "all keys of run X" one prefix;
//   - sequence numbers are 8-byte big-endian, so byte order is numeric order.
//
//   runs    Str(run_id)
//   tasks   Str(run_id) Str(task_id)
//   events  Str(run_id) U64(seq)
//   ledger  Str(request_id) 'S' U64(seq)                  observations by seq
//           Str(request_id) 'T' Str(task_id) U64(seq)     index by task
//   flows   Str(tenant) Str(name) U64(version)             a tenant's flows are
//           one prefix; before, Str(name) U64(version) with the name
//           "tenant/name" (flow_key_migration.h rewrites those once)
//   cache   Str(scope_key)
//   meta    the name itself: "run-spec/<run id>" (a run's flow spec, written
//           once, kept out of the run record that changes on every event),
//           "idempotency/<key>" (the run a SubmitRun idempotency key created),
//           "prior-work/" Str(run_id) Str(task_id) (a task's latest prior work),
//           "run-phase/" Str(run_id) U64(index) (a run's phase records),
//           "finished/" U64(finished ms) Str(run_id) (finished root runs by
//           age, for --retention), "tenant-runs/" Str(tenant) Str(run_id)
//           (a tenant's runs, for ListRuns); "run-indexes" marks both
//           complete; "audit/" Str(tenant) U64(micros) (an audit record,
//           a tenant's in time order) and "audit-time/" U64(micros)
//           Str(tenant) (every tenant's, for admins and retention;
//           docs/audit.md)
//           complete; "schedule/" Str(tenant) Str(name) (a schedule and its
//           state, ScheduleRecord: a tenant's schedules are one prefix);
//           "trigger/" Str(tenant) Str(name) (TriggerRecord)
//           "run-state/" Str(tenant) Str(root run id) Str(space) Str(key)
//           (a run storage value, the raw bytes: a tenant's and a root
//           run's are one prefix; docs/mcp.md#flowstate)

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::store::keys {

std::string Run(absl::string_view run_id);

std::string Task(absl::string_view run_id, absl::string_view task_id);
std::string TasksOfRun(absl::string_view run_id);  // prefix
// Whether task `a`'s key sorts before task `b`'s within one run: the ids are
// length-prefixed, so shorter ids first, then bytewise.
bool TaskKeyLess(absl::string_view a, absl::string_view b);

std::string Event(absl::string_view run_id, uint64_t seq);
std::string EventsOfRun(absl::string_view run_id);  // prefix

std::string LedgerEntry(absl::string_view request_id, uint64_t seq);
std::string LedgerOfRequest(absl::string_view request_id);  // prefix of entries
std::string LedgerTaskIndex(absl::string_view request_id, absl::string_view task_id, uint64_t seq);
std::string LedgerIndexOfTask(absl::string_view request_id, absl::string_view task_id);  // prefix
// How a task is named in its request's ledger index: its id in the root run,
// `run_id/task_id` in a child run (task ids are unique only per run).
std::string LedgerTaskName(absl::string_view request_id, absl::string_view run_id,
                           absl::string_view task_id);

std::string Flow(absl::string_view tenant, absl::string_view name, uint64_t version);
std::string FlowVersions(absl::string_view tenant, absl::string_view name);  // prefix
std::string TenantFlows(absl::string_view tenant);                           // prefix

std::string Cache(absl::string_view scope_key);

std::string RunSpec(absl::string_view run_id);               // meta column
std::string Idempotency(absl::string_view idempotency_key);  // meta column
// A run's phase records, one key each so a commit writes only the phases
// that changed (meta column; the prefix lists them in index order).
std::string RunPhase(absl::string_view run_id, uint64_t index);
std::string RunPhases(absl::string_view run_id);  // prefix
// A map phase's resolved items (PhaseItems, meta column), written when they
// change rather than with every rewrite of the phase record.
std::string RunPhaseItems(absl::string_view run_id, uint64_t index);
std::string RunPhaseItemsOfRun(absl::string_view run_id);  // prefix
// The prior work a task was given on its latest dispatch (meta column).
std::string PriorWork(absl::string_view run_id, absl::string_view task_id);
std::string PriorWorkOfRun(absl::string_view run_id);  // prefix
// Every ledger key of a request: its entries and its task index.
std::string LedgerKeysOfRequest(absl::string_view request_id);  // prefix

// Finished root runs ordered by when they finished (meta column): retention
// reads the oldest first.
std::string FinishedRun(int64_t finished_ms, absl::string_view run_id);
std::string FinishedRuns();  // prefix
// A tenant's runs, in run id (creation) order (meta column): ListRuns of one
// tenant reads only its own.
std::string TenantRun(absl::string_view tenant, absl::string_view run_id);
std::string TenantRuns(absl::string_view tenant);  // prefix
// The run id of a TenantRun key of `tenant`; nullopt for another shape.
std::optional<std::string> ParseTenantRun(absl::string_view tenant, absl::string_view key);
// What one tenant's calls to one model billed on one UTC day (meta column,
// LlmUsageRecord): "llm-usage/" day tenant model, so a month or a day is one
// prefix ("llm-usage/2026-11") and days sort in order.
std::string LlmUsage(absl::string_view day, absl::string_view tenant, absl::string_view model);
std::string LlmUsageFrom(absl::string_view day_or_month);  // prefix / scan start
std::string LlmUsageEnd();                                 // scan end
struct LlmUsageKey {
  std::string day;
  std::string tenant;
  std::string model;
};
std::optional<LlmUsageKey> ParseLlmUsage(absl::string_view key);
// A tenant's schedule (meta column, ScheduleRecord; docs/schedules.md).
std::string Schedule(absl::string_view tenant, absl::string_view name);
std::string TenantSchedules(absl::string_view tenant);  // prefix
std::string AllSchedules();                             // prefix
// A tenant's trigger (meta column, TriggerRecord; docs/schedules.md#event-triggers).
std::string Trigger(absl::string_view tenant, absl::string_view name);
std::string AllTriggers();  // prefix
// A root run's storage (docs/mcp.md#flowstate), one key per value (meta
// column): the tenant first, so a tenant's usage is one scan.
std::string RunStateEntry(absl::string_view tenant, absl::string_view root_run_id,
                          absl::string_view space, absl::string_view key);
std::string RunStateOfRun(absl::string_view tenant, absl::string_view root_run_id);  // prefix
std::string RunStateOfTenant(absl::string_view tenant);                              // prefix
struct RunStateKey {
  std::string tenant;
  std::string root_run_id;
  std::string space;
  std::string key;
};
std::optional<RunStateKey> ParseRunStateEntry(absl::string_view key);
// Marks that runs stored before these indexes existed were added to them.
std::string RunIndexesBuilt();
// Marks that the flows column has only tenant-prefixed keys (meta column).
std::string FlowKeysByTenant();
struct FinishedKey {
  int64_t finished_ms = 0;
  std::string run_id;
};
std::optional<FinishedKey> ParseFinishedRun(absl::string_view key);

// The audit trail (meta column, docs/audit.md): a record (AuditEvent) under
// its tenant in time order, and an empty index key over every tenant in
// time order. `micros` is unique per tenant (the recorder's clock never
// repeats a value).
std::string AuditRecord(absl::string_view tenant, uint64_t micros);
std::string AuditRecordsOfTenant(absl::string_view tenant);  // prefix
std::string AuditByTime(uint64_t micros, absl::string_view tenant);
std::string AuditTimeIndex();  // prefix
struct AuditKey {
  std::string tenant;
  uint64_t micros = 0;
};
std::optional<AuditKey> ParseAuditRecord(absl::string_view key);
std::optional<AuditKey> ParseAuditByTime(absl::string_view key);

// Decoders: nullopt when `key` is not of that shape.
std::optional<std::string> ParseRun(absl::string_view key);  // the run id
struct TaskKey {
  std::string run_id;
  std::string task_id;
};
std::optional<TaskKey> ParseTask(absl::string_view key);

struct SeqKey {
  std::string id;  // run id (events) or request id (ledger)
  uint64_t seq = 0;
};
std::optional<SeqKey> ParseEvent(absl::string_view key);
std::optional<SeqKey> ParseLedgerEntry(absl::string_view key);

struct FlowKey {
  std::string tenant;
  std::string name;
  uint64_t version = 0;
};
std::optional<FlowKey> ParseFlow(absl::string_view key);
// A key of the flows column's first layout, Str(stored name) U64(version),
// the stored name being "tenant/name" or, for the empty tenant, "name". The
// two layouts never parse as each other (a first-layout key is 4 bytes
// shorter than any second-layout key with the same first string).
std::optional<FlowKey> ParseLegacyFlow(absl::string_view key);
std::string LegacyFlow(absl::string_view stored_name, uint64_t version);  // tests

// The trailing sequence number of an index key (ledger task index).
std::optional<uint64_t> TrailingSeq(absl::string_view key);

}  // namespace taskboard::store::keys

#endif  // TASKBOARD_SCHEDULER_STORE_KEYS_H_
