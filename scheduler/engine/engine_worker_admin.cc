// Engine: what operators see of and do to connected workers.

#include <algorithm>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "scheduler/engine/engine.h"
#include "scheduler/engine/task_states.h"

namespace taskboard::engine {

v1::WorkerInfo Engine::DescribeWorker(const dispatch::ConnectedWorker& worker) const {
  v1::WorkerInfo info;
  info.set_worker_id(worker.worker_id);
  info.set_incarnation(worker.hello.incarnation());
  info.set_version(worker.hello.version());
  for (const std::string& agent : worker.agents) info.add_agents(agent);
  for (const v1::ToolDeclaration& tool : worker.hello.tools()) info.add_tools(tool.name());
  info.set_free_slots(static_cast<int32_t>(std::max<int64_t>(0, worker.credits)));
  info.set_running(static_cast<int32_t>(leases_.HeldBy(worker.stream_id).size()));
  info.set_draining(worker.draining);
  *info.mutable_connected_at() = ToTimestamp(worker.connected_ms);
  *info.mutable_last_heartbeat() = ToTimestamp(worker.last_heard_ms);
  info.mutable_labels()->insert(worker.hello.labels().begin(), worker.hello.labels().end());
  return info;
}

void Engine::ListWorkers(std::function<void(std::vector<v1::WorkerInfo>)> done) {
  Post([this, done = std::move(done)]() mutable {
    std::vector<v1::WorkerInfo> workers;
    for (const auto& [stream_id, worker] : workers_.all()) {
      workers.push_back(DescribeWorker(worker));
    }
    std::sort(workers.begin(), workers.end(), [](const v1::WorkerInfo& a, const v1::WorkerInfo& b) {
      return a.worker_id() < b.worker_id();
    });
    batch_.AfterCommit([done = std::move(done), workers = std::move(workers)]() mutable {
      done(std::move(workers));
    });
  });
}

void Engine::DrainWorker(std::string worker_id, int64_t grace_ms, std::string reason,
                         std::function<void(absl::StatusOr<v1::WorkerInfo>)> done) {
  Post([this, worker_id = std::move(worker_id), grace_ms, reason = std::move(reason),
        done = std::move(done)]() mutable {
    std::vector<dispatch::ConnectedWorker*> streams = workers_.FindByWorkerId(worker_id);
    if (streams.empty()) {
      std::vector<std::string> connected;
      for (const auto& [stream_id, worker] : workers_.all()) connected.push_back(worker.worker_id);
      std::sort(connected.begin(), connected.end());
      connected.erase(std::unique(connected.begin(), connected.end()), connected.end());
      absl::Status status = absl::NotFoundError(absl::StrCat(
          "no connected worker has id '", worker_id,
          "' (connected: ", connected.empty() ? "none" : absl::StrJoin(connected, ", "),
          "); `taskboard workers` lists them"));
      batch_.AfterCommit([done = std::move(done), status]() { done(status); });
      return;
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
    v1::WorkerInfo info = DescribeWorker(*streams.front());
    batch_.AfterCommit(
        [done = std::move(done), info = std::move(info)]() mutable { done(std::move(info)); });
  });
}

}  // namespace taskboard::engine
