#ifndef TASKBOARD_SCHEDULER_HA_ELECTION_KV_H_
#define TASKBOARD_SCHEDULER_HA_ELECTION_KV_H_

// What leader election needs from etcd, in plain C++ types: leases, a
// linearizable read, a conditional put (one Txn), and waiting for a key to
// change. EtcdElectionKv (etcd_election_kv.h) implements it on etcd's gRPC
// API; tests use an in-memory fake with a fake clock. Revisions, leases and
// compares mean what they mean in etcd: a missing key compares as create and
// mod revision 0, and every write raises the store's revision by one.
//
// Every method takes a deadline and returns DEADLINE_EXCEEDED when etcd did
// not answer by then, UNAVAILABLE when no member could answer; other codes
// are listed per method.
//
// Thread safety: implementations are safe for concurrent use.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace taskboard::ha {

struct KvEntry {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t lease = 0;  // 0: none
};

struct KvRead {
  std::optional<KvEntry> entry;  // nullopt: the key does not exist
  int64_t revision = 0;          // the store's revision the read saw
};

// One compare of a conditional put.
struct KvCondition {
  enum class Target { kCreateRevision, kModRevision };
  std::string key;
  Target target = Target::kCreateRevision;
  int64_t equals = 0;  // 0 with a missing key: holds
};

struct KvPutResult {
  bool succeeded = false;  // every condition held and the put was made
  int64_t revision = 0;    // the store's revision after the transaction
};

struct GrantedLease {
  int64_t id = 0;
  absl::Duration ttl;  // what etcd granted, which may exceed what was asked
};

// A change to a watched key.
struct KvChange {
  bool deleted = false;
  KvEntry entry;         // the new value (key only, when deleted)
  int64_t revision = 0;  // the revision of the change
};

class ElectionKv {
 public:
  virtual ~ElectionKv() = default;

  virtual absl::StatusOr<GrantedLease> GrantLease(absl::Duration ttl, absl::Time deadline) = 0;
  // Renews lease `id`; the TTL it has again. NOT_FOUND when the lease
  // expired or was revoked.
  virtual absl::StatusOr<absl::Duration> KeepAlive(int64_t id, absl::Time deadline) = 0;
  // Revokes lease `id`, deleting its keys. OK when it no longer exists.
  virtual absl::Status RevokeLease(int64_t id, absl::Time deadline) = 0;

  // A linearizable read of `key` (never a member's possibly stale copy).
  virtual absl::StatusOr<KvRead> Get(const std::string& key, absl::Time deadline) = 0;

  // Puts `key` = `value` (attached to `lease` unless 0) if every condition
  // holds, in one transaction.
  virtual absl::StatusOr<KvPutResult> PutIf(const std::vector<KvCondition>& conditions,
                                            const std::string& key, const std::string& value,
                                            int64_t lease, absl::Time deadline) = 0;

  // The first change to `key` after `after_revision`, or nullopt when none
  // came by `deadline` (not an error: waiting again is fine). OUT_OF_RANGE
  // when `after_revision` was compacted away (read the key again).
  virtual absl::StatusOr<std::optional<KvChange>> WaitForChange(const std::string& key,
                                                                int64_t after_revision,
                                                                absl::Time deadline) = 0;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_ELECTION_KV_H_
