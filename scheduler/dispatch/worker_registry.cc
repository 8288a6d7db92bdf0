#include "scheduler/dispatch/worker_registry.h"

#include <algorithm>
#include <utility>

namespace taskboard::dispatch {

ConnectedWorker& WorkerRegistry::Add(uint64_t stream_id, const v1::Hello& hello,
                                     std::shared_ptr<WorkerChannel> channel, int64_t now_ms) {
  ConnectedWorker& worker = workers_[stream_id];
  worker.stream_id = stream_id;
  worker.worker_id = hello.worker_id();
  for (const v1::AgentInfo& agent : hello.agents()) worker.agents.insert(agent.name());
  worker.credits = hello.slots();
  worker.capacity = static_cast<int64_t>(hello.slots()) + hello.held_tasks_size();
  worker.prefetch = std::clamp<int64_t>(hello.prefetch(), 0, kMaxPrefetch);
  worker.channel = std::move(channel);
  worker.hello = hello;
  worker.hello.clear_held_tasks();
  worker.connected_ms = now_ms;
  worker.last_heard_ms = now_ms;
  return worker;
}

void ResizePrefetch(ConnectedWorker& worker, int64_t prefetch) {
  prefetch = std::clamp<int64_t>(prefetch, 0, kMaxPrefetch);
  worker.capacity = std::max<int64_t>(0, worker.capacity + prefetch - worker.prefetch);
  worker.prefetch = prefetch;
}

std::vector<ConnectedWorker*> WorkerRegistry::FindByWorkerId(absl::string_view worker_id) {
  std::vector<ConnectedWorker*> found;
  for (auto& [stream_id, worker] : workers_) {
    if (worker.worker_id == worker_id) found.push_back(&worker);
  }
  return found;
}

void WorkerRegistry::Remove(uint64_t stream_id) { workers_.erase(stream_id); }

ConnectedWorker* WorkerRegistry::Find(uint64_t stream_id) {
  auto it = workers_.find(stream_id);
  return it == workers_.end() ? nullptr : &it->second;
}

ConnectedWorker* WorkerRegistry::Pick(absl::string_view agent) {
  if (workers_.empty()) return nullptr;
  // Two passes over the ring: streams after the cursor, then from the start.
  // A worker with an idle slot first (more credits than queue places): a
  // task queued behind a busy worker's running ones waits for them, while
  // an idle slot elsewhere would start it now.
  auto start = workers_.upper_bound(cursor_);
  for (const bool idle_slot : {true, false}) {
    for (int pass = 0; pass < 2; ++pass) {
      auto begin = pass == 0 ? start : workers_.begin();
      auto end = pass == 0 ? workers_.end() : start;
      for (auto it = begin; it != end; ++it) {
        ConnectedWorker& worker = it->second;
        const int64_t needed = idle_slot ? worker.prefetch : 0;
        if (worker.credits > needed && !worker.draining && !worker.silent &&
            worker.agents.count(agent) > 0) {
          cursor_ = it->first;
          return &worker;
        }
      }
    }
  }
  return nullptr;
}

bool WorkerRegistry::AnyOffers(absl::string_view agent) const {
  for (const auto& [id, worker] : workers_) {
    if (!worker.draining && worker.agents.count(agent) > 0) return true;
  }
  return false;
}

std::vector<std::string> WorkerRegistry::OfferedAgents() const {
  std::set<std::string> agents;
  for (const auto& [id, worker] : workers_)
    agents.insert(worker.agents.begin(), worker.agents.end());
  return {agents.begin(), agents.end()};
}

int64_t WorkerRegistry::FreeSlots() const {
  int64_t total = 0;
  for (const auto& [id, worker] : workers_) total += worker.draining ? 0 : worker.credits;
  return total;
}

std::string WorkerRegistry::FirstRegisteredAgent() const {
  // Every worker offers `noop`; as a default it would run nothing.
  constexpr absl::string_view kBuiltInNoop = "noop";
  bool noop_offered = false;
  // Stream ids grow with each connection, so the map's order is theirs.
  for (const auto& [stream_id, worker] : workers_) {
    if (worker.draining) continue;
    for (const v1::AgentInfo& agent : worker.hello.agents()) {
      if (agent.name() != kBuiltInNoop) return agent.name();
      noop_offered = true;
    }
  }
  return noop_offered ? std::string(kBuiltInNoop) : "";
}

}  // namespace taskboard::dispatch
