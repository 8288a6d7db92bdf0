#ifndef TASKBOARD_SCHEDULER_DISPATCH_WORKER_REGISTRY_H_
#define TASKBOARD_SCHEDULER_DISPATCH_WORKER_REGISTRY_H_

// The connected worker streams: what agents each offers, how many free slots
// (credits) it has granted, and whether it is draining. Picks a worker for an
// agent round-robin among those with credits, so load spreads over workers.
// Owned by the engine loop; not thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "scheduler/dispatch/worker_channel.h"
#include "taskboard/v1/worker.pb.h"

namespace taskboard::dispatch {

struct ConnectedWorker {
  uint64_t stream_id = 0;
  std::string worker_id;
  // Who the stream authenticated as ("" without authentication).
  std::string identity;
  // Transparent, so a lookup by string_view makes no string.
  std::set<std::string, std::less<>> agents;
  int64_t credits = 0;
  // The slots it declared in Hello (free ones plus the tasks it held then),
  // moved by each prefetch resize: credits are never more than this.
  int64_t capacity = 0;
  // How many of its places are a queue ahead of its slots (Hello.prefetch,
  // then Credits.prefetch): with more credits than this it has an idle slot.
  int64_t prefetch = 0;
  bool draining = false;
  std::shared_ptr<WorkerChannel> channel;
  // The worker's Hello (agents, tools, slots, labels), kept for tool cache
  // declarations and for ListWorkers.
  v1::Hello hello;
  int64_t connected_ms = 0;
  // When the scheduler last heard from it (its Hello, then any message on
  // the stream): ListWorkers' last_heartbeat. The engine's batch time, so
  // keeping it costs one store per message and no clock read.
  int64_t last_heard_ms = 0;
  // A lease of its expired without a heartbeat, and nothing came from it
  // since: it is stopped, or cut off without its connection closing.
  bool silent = false;
};

// The most queue places a worker may declare (the worker's --prefetch and
// --prefetch-max accept no more).
inline constexpr int64_t kMaxPrefetch = 4096;

// Credits.prefetch: the worker's queue is `prefetch` places from now on,
// clamped to [0, kMaxPrefetch]; its capacity moves by the difference, never
// below 0.
void ResizePrefetch(ConnectedWorker& worker, int64_t prefetch);

class WorkerRegistry {
 public:
  ConnectedWorker& Add(uint64_t stream_id, const v1::Hello& hello,
                       std::shared_ptr<WorkerChannel> channel, int64_t now_ms);
  void Remove(uint64_t stream_id);
  ConnectedWorker* Find(uint64_t stream_id);
  // Every stream of `worker_id` (normally one; two while a reconnect races
  // the old stream's end).
  std::vector<ConnectedWorker*> FindByWorkerId(absl::string_view worker_id);
  const std::map<uint64_t, ConnectedWorker>& all() const { return workers_; }

  // A worker offering `agent` with a free credit, not draining and not
  // silent; round-robin, preferring workers with an idle slot over ones
  // whose queue has room. A silent worker gets no work until it speaks
  // again: a lease given to it would only wait to expire.
  ConnectedWorker* Pick(absl::string_view agent);
  // Whether any connected worker (busy or not, not draining) offers `agent`.
  bool AnyOffers(absl::string_view agent) const;
  // Every agent offered by a connected worker, sorted.
  std::vector<std::string> OfferedAgents() const;
  // The "first registered agent", the default agent of a scheduler without
  // --default-agent (docs/decisions.md 77): among workers not draining, in
  // the order their current streams connected, the first agent (in the
  // order the worker lists them, by name) other than the built-in `noop`;
  // `noop` when no worker offers anything else; "" without workers.
  std::string FirstRegisteredAgent() const;

  size_t size() const { return workers_.size(); }
  int64_t FreeSlots() const;

 private:
  std::map<uint64_t, ConnectedWorker> workers_;
  uint64_t cursor_ = 0;  // stream id after which the next Pick starts
};

}  // namespace taskboard::dispatch

#endif  // TASKBOARD_SCHEDULER_DISPATCH_WORKER_REGISTRY_H_
