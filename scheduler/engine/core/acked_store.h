#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_ACKED_STORE_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_ACKED_STORE_H_

// The store as threads other than the engine's loop see it on a replicated
// scheduler's leader (docs/high-availability.md#acknowledged-writes): as of
// the last batch whose effects the replication gate released, never a batch
// that followers may not hold yet. GetRun, ListRuns, GetTask, WatchRun's
// replay, GetUsage, ListAuditEvents, GetFlow, ListFlows and a SubmitRun by a
// saved flow's name read here; without it they could show a run or a flow
// that a failover then loses.
//
// The commit pipeline takes a snapshot of the store after each write and,
// when the gate releases that batch, publishes it here before the batch's
// effects run: a reply, or an event a watcher receives, is never ahead of
// what a read shows. Saved flows are written from RPC threads, outside the
// pipeline; their writer publishes once the gate released its write, so a
// SaveFlow's reply is not ahead of GetFlow either. Until the first release
// the view is the store as the leader found it when it took over.
//
// Writes are refused: everything written goes through the engine's commit
// or the saved flows. A Checkpoint (`taskboard admin backup`) is of the
// store itself.
//
// Thread safety: safe for concurrent use; Publish comes from the pipeline's
// release thread and from threads that saved a flow.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/store/store.h"

namespace taskboard::engine {

class AckedStore : public store::Store {
 public:
  // `store` outlives this view; its snapshots must be released (this view
  // destroyed) before it closes.
  explicit AckedStore(store::Store* store);

  // Makes `snapshot` what reads see, once the gate released every batch up
  // to `index`: the snapshot must have been taken before the index was
  // read, so that it shows nothing written after it. The commit pipeline
  // publishes after each release, a saved flow's writer after its own
  // (Engine::AwaitReplicated); an older index than the one shown is
  // ignored, so the two never move the view back.
  void Publish(std::shared_ptr<store::Store> snapshot, uint64_t index);

  absl::Status Write(const store::WriteBatch& batch) override;
  absl::StatusOr<std::optional<std::string>> Get(store::Column column,
                                                 absl::string_view key) override;
  absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      store::Column column, absl::Span<const std::string> keys) override;
  absl::Status Scan(store::Column column, absl::string_view start, absl::string_view end,
                    const Visitor& visit) override;
  absl::Status ScanOnce(store::Column column, absl::string_view start, absl::string_view end,
                        const Visitor& visit) override;
  absl::Status ScanReverse(store::Column column, absl::string_view start, absl::string_view end,
                           const Visitor& visit) override;
  absl::Status Checkpoint(const std::string& dir) override;
  std::shared_ptr<store::Store> ReadSnapshot() override;

 private:
  // What reads see now: the last published snapshot, or the store itself
  // when it cannot take snapshots.
  std::shared_ptr<store::Store> Visible();

  store::Store* const store_;
  absl::Mutex mu_;
  std::shared_ptr<store::Store> visible_ ABSL_GUARDED_BY(mu_);
  // The index `visible_` was published at (0: the store as found).
  uint64_t visible_index_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_ACKED_STORE_H_
