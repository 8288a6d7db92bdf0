#ifndef TASKBOARD_SCHEDULER_HA_ETCD_CLIENT_H_
#define TASKBOARD_SCHEDULER_HA_ETCD_CLIENT_H_

// A small etcd v3 client over gRPC (scheduler/ha/etcd_v3.proto): the unary KV
// and Lease calls the leader election needs, Maintenance.Status, and the
// LeaseKeepAlive and Watch streams. It is the gRPC binding of scheduler/ha:
// the election logic talks to etcd through ElectionKv (election_kv.h), which
// EtcdElectionKv implements on this class.
//
// Endpoints: one channel per endpoint ("host:port"). A unary call goes to the
// endpoint that answered last; when an attempt fails with UNAVAILABLE (member
// down, no etcd leader, "request timed out") or runs out of its per-attempt
// time, the call moves on to the next endpoint until its deadline. A call that
// timed out on one member may still have been applied there, so callers make
// their writes conditional (Txn) or idempotent.
//
// Every call takes a deadline; an error names the call and each endpoint
// tried with its answer ("etcd KV.Txn: 127.0.0.1:2379: UNAVAILABLE: ...").
// Error codes of the unary calls: DEADLINE_EXCEEDED when no endpoint answered
// in time, UNAVAILABLE when every endpoint failed, and etcd's own code
// otherwise (NOT_FOUND "requested lease not found", INVALID_ARGUMENT,
// FAILED_PRECONDITION, ...), which is not retried.
//
// Thread safety: EtcdClient is safe for concurrent use. A stream object
// (EtcdKeepAliveStream, EtcdWatchStream) is used by one thread at a time.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/security/credentials.h"
#include "scheduler/ha/etcd_bidi_call.h"
#include "scheduler/ha/etcd_v3.grpc.pb.h"

namespace taskboard::ha {

struct EtcdClientOptions {
  // "host:port" of each etcd member's client URL; at least one.
  std::vector<std::string> endpoints;
  // The longest one endpoint gets within a call before the next is tried (a
  // SIGSTOPped or partitioned member answers nothing; a down one refuses at
  // once).
  absl::Duration attempt_timeout = absl::Seconds(1);
  // Null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
};

// One LeaseKeepAlive stream to one endpoint: a keepalive is sent and its
// answer awaited before the next (answers come in order, so one outstanding
// request is never confused with another). Once an answer was not awaited to
// the end (deadline) or the stream broke, the stream is unusable: open another.
class EtcdKeepAliveStream {
 public:
  // Renews lease `id`. The remaining TTL in seconds: <= 0 means the lease no
  // longer exists. DEADLINE_EXCEEDED (no answer by `deadline`), UNAVAILABLE
  // (the stream ended; with the endpoint's status), FAILED_PRECONDITION (an
  // earlier call left the stream unusable).
  absl::StatusOr<int64_t> KeepAlive(int64_t id, absl::Time deadline);
  const std::string& endpoint() const { return endpoint_; }

 private:
  friend class EtcdClient;
  using Call =
      EtcdBidiCall<etcdserverpb::LeaseKeepAliveRequest, etcdserverpb::LeaseKeepAliveResponse>;
  EtcdKeepAliveStream(std::string endpoint, std::unique_ptr<Call> call)
      : endpoint_(std::move(endpoint)), call_(std::move(call)) {}

  const std::string endpoint_;
  std::unique_ptr<Call> call_;
  bool broken_ = false;
};

// One Watch stream with one watcher, to one endpoint, created by
// EtcdClient::Watch (which waited for etcd to confirm it).
class EtcdWatchStream {
 public:
  // The next response with events (progress-only responses are skipped).
  // DEADLINE_EXCEEDED when none came by `deadline` (the stream stays usable);
  // OUT_OF_RANGE when etcd cancelled the watch because the start revision
  // was compacted (the message has the compact revision); UNAVAILABLE or the
  // stream's own code when it ended.
  absl::StatusOr<etcdserverpb::WatchResponse> Next(absl::Time deadline);
  const std::string& endpoint() const { return endpoint_; }

 private:
  friend class EtcdClient;
  using Call = EtcdBidiCall<etcdserverpb::WatchRequest, etcdserverpb::WatchResponse>;
  EtcdWatchStream(std::string endpoint, std::unique_ptr<Call> call)
      : endpoint_(std::move(endpoint)), call_(std::move(call)) {}

  const std::string endpoint_;
  std::unique_ptr<Call> call_;
};

class EtcdClient {
 public:
  // INVALID_ARGUMENT when no endpoint is given or one is empty.
  static absl::StatusOr<std::unique_ptr<EtcdClient>> Create(EtcdClientOptions options);

  absl::StatusOr<etcdserverpb::RangeResponse> Range(const etcdserverpb::RangeRequest& request,
                                                    absl::Time deadline);
  absl::StatusOr<etcdserverpb::PutResponse> Put(const etcdserverpb::PutRequest& request,
                                                absl::Time deadline);
  absl::StatusOr<etcdserverpb::DeleteRangeResponse> DeleteRange(
      const etcdserverpb::DeleteRangeRequest& request, absl::Time deadline);
  // `succeeded` in the response says whether the compares held.
  absl::StatusOr<etcdserverpb::TxnResponse> Txn(const etcdserverpb::TxnRequest& request,
                                                absl::Time deadline);
  // The response's TTL is what etcd granted (at least its minimum, 1.5 x
  // its election timeout), which may exceed the requested one.
  absl::StatusOr<etcdserverpb::LeaseGrantResponse> LeaseGrant(
      const etcdserverpb::LeaseGrantRequest& request, absl::Time deadline);
  // NOT_FOUND when the lease does not exist (any more).
  absl::StatusOr<etcdserverpb::LeaseRevokeResponse> LeaseRevoke(
      const etcdserverpb::LeaseRevokeRequest& request, absl::Time deadline);
  // The status of the member at `endpoints[index]` only (no failover): its
  // member id and the etcd leader it knows, for health checks and tests.
  absl::StatusOr<etcdserverpb::StatusResponse> Status(size_t index, absl::Time deadline);

  // Opens a keepalive stream on the current endpoint. Whether the member
  // answers shows in the first KeepAlive; after a failure, SkipEndpoint and
  // open another.
  std::unique_ptr<EtcdKeepAliveStream> LeaseKeepAlive();
  // Opens a watch with `request` and waits for etcd's confirmation, moving
  // to the next endpoint on failure. OUT_OF_RANGE when the start revision is
  // compacted; UNAVAILABLE / DEADLINE_EXCEEDED as for unary calls.
  absl::StatusOr<std::unique_ptr<EtcdWatchStream>> Watch(
      const etcdserverpb::WatchCreateRequest& request, absl::Time deadline);

  const std::vector<std::string>& endpoints() const { return options_.endpoints; }
  // The endpoint the next call tries first.
  std::string current_endpoint() const;
  // After a stream on `endpoint` failed: the next call starts with the
  // endpoint after it (unless another call moved on already).
  void SkipEndpoint(const std::string& endpoint);

 private:
  struct Member {
    std::string endpoint;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
    std::unique_ptr<etcdserverpb::Maintenance::Stub> maintenance;
  };
  // One attempt of a call on one member: its gRPC status.
  using Attempt = std::function<grpc::Status(Member& member, grpc::ClientContext& context)>;

  explicit EtcdClient(EtcdClientOptions options);
  // Runs `attempt` on each member in turn from the current one until one
  // answers with a status that is not worth another member, or `deadline`.
  absl::Status CallWithFailover(absl::string_view method, absl::Time deadline,
                                const Attempt& attempt);
  size_t current() const;
  void SetCurrent(size_t index);

  const EtcdClientOptions options_;
  std::vector<Member> members_;
  mutable absl::Mutex mu_;
  size_t current_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_ETCD_CLIENT_H_
