#ifndef TASKBOARD_TESTS_UNIT_HA_FAKE_ELECTION_KV_H_
#define TASKBOARD_TESTS_UNIT_HA_FAKE_ELECTION_KV_H_

// An in-memory ElectionKv with etcd's semantics (revisions, leases that
// expire on a fake clock and take their keys with them, compares on create
// and mod revision, a change history for watches) and faults a test can
// switch on: etcd unreachable, a Txn whose answer is lost after it applied,
// a hook inside every keepalive. WaitForChange never blocks: it answers from
// the history or says "nothing yet". Single-threaded tests only.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/ha/election_kv.h"
#include "scheduler/ha/lease_clock.h"

namespace taskboard::ha::testing {

class FakeLeaseClock final : public LeaseClock {
 public:
  absl::Duration Now() const override { return now_; }
  void Advance(absl::Duration d) { now_ += d; }

 private:
  absl::Duration now_ = absl::Hours(1);
};

class FakeElectionKv final : public ElectionKv {
 public:
  explicit FakeElectionKv(FakeLeaseClock* clock) : clock_(clock) {}

  // Every call fails with UNAVAILABLE (a partition, quorum lost).
  void SetUnavailable(bool unavailable) { unavailable_ = unavailable; }
  // The next PutIf applies, then answers UNAVAILABLE (the answer was lost).
  void LoseNextPutAnswer() { lose_next_put_answer_ = true; }
  // Runs inside every KeepAlive before etcd renews (e.g. to let time pass).
  std::function<void()> on_keepalive;

  std::optional<KvEntry> Peek(const std::string& key) {
    ExpireLeases();
    auto it = kv_.find(key);
    if (it == kv_.end()) return std::nullopt;
    return it->second;
  }
  int64_t revision() const { return revision_; }
  // Ends lease `id` now, as etcd's lessor would at its expiry.
  void ExpireLease(int64_t id) { EndLease(id); }

  absl::StatusOr<GrantedLease> GrantLease(absl::Duration ttl, absl::Time) override {
    if (unavailable_) return Unavailable();
    const int64_t id = next_lease_++;
    leases_[id] = Lease{ttl, clock_->Now() + ttl, {}};
    return GrantedLease{id, ttl};
  }

  absl::StatusOr<absl::Duration> KeepAlive(int64_t id, absl::Time) override {
    if (unavailable_) return Unavailable();
    if (on_keepalive) on_keepalive();
    ExpireLeases();
    auto it = leases_.find(id);
    if (it == leases_.end()) return absl::NotFoundError(absl::StrCat("lease ", id, " not found"));
    it->second.expiry = clock_->Now() + it->second.ttl;
    return it->second.ttl;
  }

  absl::Status RevokeLease(int64_t id, absl::Time) override {
    if (unavailable_) return Unavailable();
    EndLease(id);
    return absl::OkStatus();
  }

  absl::StatusOr<KvRead> Get(const std::string& key, absl::Time) override {
    if (unavailable_) return Unavailable();
    return KvRead{Peek(key), revision_};
  }

  absl::StatusOr<KvPutResult> PutIf(const std::vector<KvCondition>& conditions,
                                    const std::string& key, const std::string& value, int64_t lease,
                                    absl::Time) override {
    if (unavailable_) return Unavailable();
    ExpireLeases();
    for (const KvCondition& condition : conditions) {
      auto it = kv_.find(condition.key);
      const int64_t actual = it == kv_.end() ? 0
                             : condition.target == KvCondition::Target::kCreateRevision
                                 ? it->second.create_revision
                                 : it->second.mod_revision;
      if (actual != condition.equals) return KvPutResult{false, revision_};
    }
    if (lease != 0 && leases_.count(lease) == 0) {
      return absl::NotFoundError("requested lease not found");
    }
    ++revision_;
    KvEntry& entry = kv_[key];
    if (entry.create_revision == 0) entry.create_revision = revision_;
    entry.key = key;
    entry.value = value;
    entry.mod_revision = revision_;
    entry.lease = lease;
    if (lease != 0) leases_[lease].keys.insert(key);
    history_.push_back(KvChange{false, entry, revision_});
    if (lose_next_put_answer_) {
      lose_next_put_answer_ = false;
      return Unavailable();
    }
    return KvPutResult{true, revision_};
  }

  absl::StatusOr<std::optional<KvChange>> WaitForChange(const std::string& key,
                                                        int64_t after_revision,
                                                        absl::Time) override {
    if (unavailable_) return Unavailable();
    ExpireLeases();
    for (const KvChange& change : history_) {
      if (change.entry.key == key && change.revision > after_revision) return change;
    }
    return std::nullopt;
  }

 private:
  struct Lease {
    absl::Duration ttl;
    absl::Duration expiry;
    std::set<std::string> keys;
  };

  static absl::Status Unavailable() { return absl::UnavailableError("etcd unreachable (fake)"); }

  void ExpireLeases() {
    std::vector<int64_t> expired;
    for (const auto& [id, lease] : leases_) {
      if (lease.expiry <= clock_->Now()) expired.push_back(id);
    }
    for (int64_t id : expired) EndLease(id);
  }

  void EndLease(int64_t id) {
    auto it = leases_.find(id);
    if (it == leases_.end()) return;
    for (const std::string& key : it->second.keys) {
      auto entry = kv_.find(key);
      if (entry == kv_.end() || entry->second.lease != id) continue;
      ++revision_;
      KvEntry gone;
      gone.key = key;
      history_.push_back(KvChange{true, gone, revision_});
      kv_.erase(entry);
    }
    leases_.erase(it);
  }

  FakeLeaseClock* const clock_;
  bool unavailable_ = false;
  bool lose_next_put_answer_ = false;
  std::map<std::string, KvEntry> kv_;
  std::map<int64_t, Lease> leases_;
  std::vector<KvChange> history_;
  int64_t revision_ = 1;
  int64_t next_lease_ = 7001;
};

}  // namespace taskboard::ha::testing

#endif  // TASKBOARD_TESTS_UNIT_HA_FAKE_ELECTION_KV_H_
