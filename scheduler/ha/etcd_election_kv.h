#ifndef TASKBOARD_SCHEDULER_HA_ETCD_ELECTION_KV_H_
#define TASKBOARD_SCHEDULER_HA_ETCD_ELECTION_KV_H_

// ElectionKv on a real etcd, through EtcdClient: reads are linearizable,
// conditional puts are one Txn, keepalives go over one LeaseKeepAlive stream
// (reopened on the next endpoint when it fails), and WaitForChange opens a
// watch from the given revision for each wait.
//
// Thread safety: safe for concurrent use; keepalives are serialized on the
// one stream.

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/ha/election_kv.h"
#include "scheduler/ha/etcd_client.h"

namespace taskboard::ha {

class EtcdElectionKv final : public ElectionKv {
 public:
  // `client` outlives this object.
  explicit EtcdElectionKv(EtcdClient* client) : client_(client) {}

  absl::StatusOr<GrantedLease> GrantLease(absl::Duration ttl, absl::Time deadline) override;
  absl::StatusOr<absl::Duration> KeepAlive(int64_t id, absl::Time deadline) override;
  absl::Status RevokeLease(int64_t id, absl::Time deadline) override;
  absl::StatusOr<KvRead> Get(const std::string& key, absl::Time deadline) override;
  absl::StatusOr<KvPutResult> PutIf(const std::vector<KvCondition>& conditions,
                                    const std::string& key, const std::string& value, int64_t lease,
                                    absl::Time deadline) override;
  absl::StatusOr<std::optional<KvChange>> WaitForChange(const std::string& key,
                                                        int64_t after_revision,
                                                        absl::Time deadline) override;

 private:
  EtcdClient* const client_;
  absl::Mutex keepalive_mu_;
  std::unique_ptr<EtcdKeepAliveStream> keepalive_ ABSL_GUARDED_BY(keepalive_mu_);
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_ETCD_ELECTION_KV_H_
