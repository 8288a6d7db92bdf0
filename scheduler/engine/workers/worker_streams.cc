#include "scheduler/engine/workers/worker_streams.h"

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "scheduler/engine/state/task_states.h"

namespace taskboard::engine {

dispatch::ConnectedWorker& WorkerStreams::Add(uint64_t stream_id, const v1::Hello& hello,
                                              std::shared_ptr<dispatch::WorkerChannel> channel,
                                              const std::string& identity) {
  dispatch::ConnectedWorker& worker =
      registry_.Add(stream_id, hello, std::move(channel), batch_->now_ms());
  worker.identity = identity;
  // Its first Hello (a fresh process, all slots free) said how many it has,
  // and that stands for its later streams.
  if (capacity_by_incarnation_.size() > 10'000) capacity_by_incarnation_.clear();
  int64_t& capacity = capacity_by_incarnation_[hello.incarnation()];
  capacity = std::max(capacity, worker.capacity);
  worker.capacity = capacity;
  return worker;
}

dispatch::ConnectedWorker* WorkerStreams::Heard(uint64_t stream_id) {
  dispatch::ConnectedWorker* worker = registry_.Find(stream_id);
  if (worker == nullptr) return nullptr;
  worker->silent = false;
  worker->last_heard_ms = batch_->now_ms();
  return worker;
}

void WorkerStreams::Silence(uint64_t stream_id) {
  if (dispatch::ConnectedWorker* worker = registry_.Find(stream_id)) worker->silent = true;
}

void WorkerStreams::OnCredits(dispatch::ConnectedWorker& worker, const v1::Credits& credits) {
  // A credit is a slot the worker freed: never more outstanding than the
  // slots it said it has (free in Hello plus the tasks it held then).
  const int64_t slots = credits.slots();
  if (credits.has_prefetch()) dispatch::ResizePrefetch(worker, credits.prefetch());
  const int64_t capacity = worker.capacity;
  // No credit with a resize: a worker shrinking its queue withholds the
  // place a task freed.
  if (slots < 0 || (slots == 0 && !credits.has_prefetch()) || worker.credits + slots > capacity) {
    log::Warn("worker sent slot credits past its capacity; capped")
        .With("worker_id", worker.worker_id)
        .With("credits", slots)
        .With("outstanding", worker.credits)
        .With("capacity", capacity);
  }
  if (slots > 0) worker.credits = std::min(worker.credits + slots, capacity);
}

void WorkerStreams::OnDraining(dispatch::ConnectedWorker& worker, const v1::Draining& draining) {
  worker.draining = true;
  log::Info("worker draining")
      .With("worker_id", worker.worker_id)
      .With("grace_ms", draining.grace_ms());
}

void WorkerStreams::SendTo(uint64_t stream_id, v1::ConnectResponse message) {
  dispatch::ConnectedWorker* worker = registry_.Find(stream_id);
  if (worker == nullptr) return;
  batch_->Send(worker->channel, std::move(message));
}

v1::WorkerInfo WorkerStreams::Describe(const dispatch::ConnectedWorker& worker,
                                       const dispatch::LeaseTable& leases) {
  v1::WorkerInfo info;
  info.set_worker_id(worker.worker_id);
  info.set_incarnation(worker.hello.incarnation());
  info.set_version(worker.hello.version());
  for (const std::string& agent : worker.agents) info.add_agents(agent);
  for (const v1::ToolDeclaration& tool : worker.hello.tools()) info.add_tools(tool.name());
  info.set_free_slots(static_cast<int32_t>(std::max<int64_t>(0, worker.credits)));
  info.set_running(static_cast<int32_t>(leases.HeldBy(worker.stream_id).size()));
  info.set_draining(worker.draining);
  *info.mutable_connected_at() = ToTimestamp(worker.connected_ms);
  *info.mutable_last_heartbeat() = ToTimestamp(worker.last_heard_ms);
  info.mutable_labels()->insert(worker.hello.labels().begin(), worker.hello.labels().end());
  return info;
}

std::vector<v1::WorkerInfo> WorkerStreams::List(const dispatch::LeaseTable& leases) const {
  std::vector<v1::WorkerInfo> workers;
  for (const auto& [stream_id, worker] : registry_.all())
    workers.push_back(Describe(worker, leases));
  std::sort(workers.begin(), workers.end(), [](const v1::WorkerInfo& a, const v1::WorkerInfo& b) {
    return a.worker_id() < b.worker_id();
  });
  return workers;
}

absl::StatusOr<v1::WorkerInfo> WorkerStreams::Drain(const std::string& worker_id, int64_t grace_ms,
                                                    const std::string& reason,
                                                    const dispatch::LeaseTable& leases) {
  std::vector<dispatch::ConnectedWorker*> streams = registry_.FindByWorkerId(worker_id);
  if (streams.empty()) {
    std::vector<std::string> connected;
    for (const auto& [stream_id, worker] : registry_.all()) connected.push_back(worker.worker_id);
    std::sort(connected.begin(), connected.end());
    connected.erase(std::unique(connected.begin(), connected.end()), connected.end());
    return absl::NotFoundError(
        absl::StrCat("no connected worker has id '", worker_id,
                     "' (connected: ", connected.empty() ? "none" : absl::StrJoin(connected, ", "),
                     "); `taskboard workers` lists them"));
  }
  v1::ConnectResponse drain;
  drain.mutable_drain()->set_grace_ms(grace_ms > 0 ? grace_ms : 30'000);
  drain.mutable_drain()->set_reason(reason.empty() ? "drained by an operator" : reason);
  for (dispatch::ConnectedWorker* worker : streams) {
    // No new assignments from now on, even before the worker's Draining.
    worker->draining = true;
    SendTo(worker->stream_id, drain);
  }
  log::Info("worker drain requested")
      .With("worker_id", worker_id)
      .With("grace_ms", drain.drain().grace_ms())
      .With("reason", drain.drain().reason());
  return Describe(*streams.front(), leases);
}

std::vector<std::shared_ptr<dispatch::WorkerChannel>> WorkerStreams::Channels() const {
  std::vector<std::shared_ptr<dispatch::WorkerChannel>> channels;
  for (const auto& [stream_id, worker] : registry_.all()) channels.push_back(worker.channel);
  return channels;
}

}  // namespace taskboard::engine
