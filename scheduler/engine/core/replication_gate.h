#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_REPLICATION_GATE_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_REPLICATION_GATE_H_

// What the commit pipeline asks before a written batch's effects (replies,
// assignments, watch events) may be seen by anyone: on a replicated
// scheduler's leader, "do enough followers hold it durably, and do I still
// lead?" (docs/high-availability.md#acknowledged-writes). The engine knows
// only this interface; the replicas' implementation lives in scheduler/ha/.
// A single scheduler has no gate, and its pipeline runs effects as soon as
// the batch is on its own disk (docs/semantics.md#delivery-and-durability).
//
// Threading: WrittenIndex is called right after a write by its writer (the
// pipeline's thread, the loop's for an inline write, or an RPC thread that
// saved a flow); AwaitReleasable by the pipeline's release thread and by
// threads waiting for such a write of their own
// (Engine::AwaitReplicated), concurrently.

#include <cstdint>

#include "absl/time/time.h"

namespace taskboard::engine {

class ReplicationGate {
 public:
  virtual ~ReplicationGate() = default;

  // The log index of the last batch the store wrote. An empty batch writes
  // nothing and gets the index before it: its effects may only reveal what
  // earlier batches wrote.
  virtual uint64_t WrittenIndex() const = 0;

  // Blocks until everything up to `index` may be acknowledged and returns
  // true, or returns false at `deadline` (not yet: followers behind, the set
  // of followers too small, or the leader fenced). Must return by about
  // `deadline` so that the caller can notice an Abandon.
  virtual bool AwaitReleasable(uint64_t index, absl::Time deadline) = 0;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_REPLICATION_GATE_H_
