#ifndef TASKBOARD_WORKER_SESSION_LLM_GRANTS_H_
#define TASKBOARD_WORKER_SESSION_LLM_GRANTS_H_

// The worker's side of LLM governance (docs/llm-governance.md, the
// LlmGrantRequest comment in proto/taskboard/v1/worker.proto): every model
// call of every task (each HTTP attempt, worker/agents/chat_client.h) asks
// the scheduler first and reports after. One LlmGrants per session; each
// task's AgentContext hands its agent an LlmTaskGate bound to it.
//
//   Acquire -> LlmGrantRequest{request_id} ---> scheduler
//                  LlmGrant{request_id} <------'  (when the model's limits
//                                                  and the budgets allow it)
//     granted      -> the grant id: make the call
//     not granted  -> FAILED_PRECONDITION with the scheduler's text: do not
//   Report  -> LlmCallReport{grant_id, tokens, http_status} --->
//
// Decisions (docs/agents-llm.md, "Governed calls"):
// - Whether calls are governed is what the current stream's Welcome says
//   (governs_llm_calls). An older scheduler says nothing: calls go ahead at
//   once, with grant id "", and nothing is reported.
// - A request waits for its grant for as long as that takes: the scheduler
//   holds requests while the model's limits are full. Only the task's
//   cancellation (CANCELLED) or deadline (DEADLINE_EXCEEDED) end the wait.
// - A stream that ends while a request waits took the request with it: the
//   request is sent again, with the same request id, on the next stream.
//   When no stream has been up for reconnect_wait, the call goes ahead
//   ungoverned (grant id ""): the scheduler being unreachable never fails a
//   model call. Its report still goes out (below), so its usage is billed.
// - A request given up on a live stream (cancelled, deadline) may be granted
//   later: that grant is reported at once as a call not made (http_status 0,
//   no tokens), so its reservation frees before the task's lease ends.
// - Reports go out whenever the scheduler of the stream they go out on
//   governs, whatever the grant id (an empty one too: the ungoverned
//   fallback above). The scheduler ignores an unknown or empty grant id for
//   its limits but bills the usage to the report's run. With no stream a
//   report is kept (up to 10,000, the oldest dropped) and sent after the
//   next Welcome, if that scheduler governs; a scheduler that does not
//   govern gets none.
//
// Thread-safe: Acquire and Report run on agent threads (many at once),
// OnGrant on the session's reader thread, OnWelcome and OnStreamLost as the
// stream comes and goes. The link is never called under this object's lock,
// so the session may hold its own lock while calling OnWelcome and
// OnStreamLost (which call nothing); OnGrant may send, so not under it.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "taskboard/v1/worker.pb.h"
#include "worker/agents/llm_call_gate.h"
#include "worker/base/cancel_token.h"
#include "worker/session/worker_metrics.h"

namespace taskboard::worker {

// How LlmGrants reaches the scheduler; implemented by the session (and by
// tests).
class LlmGrantLink {
 public:
  virtual ~LlmGrantLink() = default;
  // Queues `message` on the current stream if its Welcome came; false when
  // there is no such stream (nothing is kept).
  virtual bool Send(v1::ConnectRequest message) = 0;
};

// The task a model call belongs to.
struct LlmTask {
  std::string task_id;
  std::string lease_id;
  // Assignment.run_id: the run the call is billed to.
  std::string run_id;
};

struct LlmGrantsOptions {
  // How long a call waits for a stream to the scheduler (counted from when
  // the last one ended) before it goes ahead ungoverned. As long as a tool
  // call waits for the cache (ToolCallerOptions::reconnect_wait): a
  // scheduler restart takes seconds.
  absl::Duration reconnect_wait = absl::Seconds(60);
  // How often a waiting call re-checks its cancel token.
  absl::Duration cancel_poll = absl::Milliseconds(20);
  // Times each wait for a grant, by how it ended; must outlive the object.
  // Null: no metrics.
  WorkerMetrics* metrics = nullptr;
};

class LlmGrants {
 public:
  // `link` must outlive the object.
  explicit LlmGrants(LlmGrantLink& link, LlmGrantsOptions options = {});
  LlmGrants(const LlmGrants&) = delete;
  LlmGrants& operator=(const LlmGrants&) = delete;

  // LlmCallGate::Acquire for a call of `task`: the grant id, "" when the
  // call is ungoverned, or CANCELLED / DEADLINE_EXCEEDED /
  // FAILED_PRECONDITION (the scheduler's refusal, its text as the message).
  absl::StatusOr<std::string> Acquire(const LlmTask& task, const LlmCallPlan& plan,
                                      const CancelToken* cancel, absl::Time deadline);

  // LlmCallGate::Report for a call of `task`: an LlmCallReport, sent as the
  // header says.
  void Report(const LlmTask& task, const std::string& grant_id, const LlmCallPlan& plan,
              const LlmCallEnd& end);

  // The scheduler's answer to a request; unknown request ids are ignored.
  void OnGrant(const v1::LlmGrant& grant);

  // A stream's Welcome came: waiting calls ask on it (or go ahead when it
  // does not govern). Returns the reports kept while no stream was up, for
  // the caller to send on it, right away (none when it does not govern).
  std::vector<v1::ConnectRequest> OnWelcome(bool governs_llm_calls);

  // The stream ended: requests waiting for a grant are sent again on the
  // next one.
  void OnStreamLost();

 private:
  struct Pending {
    bool done = false;
    // The stream ended first.
    bool lost = false;
    v1::LlmGrant grant;
  };
  // A request given up while its stream was up.
  struct Abandoned {
    LlmTask task;
    std::string model;
  };

  std::string NextRequestIdLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Keeps `report` for the next stream, dropping the oldest beyond the cap.
  void KeepLocked(v1::ConnectRequest report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Observe(GrantWaitOutcome outcome, absl::Time start) const;

  LlmGrantLink& link_;
  const LlmGrantsOptions options_;
  const std::string request_prefix_;

  absl::Mutex mu_;
  // Signalled on every grant, Welcome and lost stream.
  absl::CondVar changed_;
  uint64_t next_request_ ABSL_GUARDED_BY(mu_) = 0;
  // A stream is up past its Welcome; which one (counts Welcomes), and
  // whether its scheduler governs.
  bool up_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t stream_ ABSL_GUARDED_BY(mu_) = 0;
  bool governs_ ABSL_GUARDED_BY(mu_) = false;
  // When the last stream ended (or this object was made).
  absl::Time down_since_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, Abandoned> abandoned_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::ConnectRequest> kept_reports_ ABSL_GUARDED_BY(mu_);
};

// The LlmCallGate of one task: its calls through `grants`.
class LlmTaskGate : public LlmCallGate {
 public:
  // `grants` must outlive the gate.
  LlmTaskGate(LlmGrants& grants, LlmTask task) : grants_(grants), task_(std::move(task)) {}

  absl::StatusOr<std::string> Acquire(const LlmCallPlan& plan, const CancelToken* cancel,
                                      absl::Time deadline) override {
    return grants_.Acquire(task_, plan, cancel, deadline);
  }
  void Report(const std::string& grant_id, const LlmCallPlan& plan,
              const LlmCallEnd& end) override {
    grants_.Report(task_, grant_id, plan, end);
  }

 private:
  LlmGrants& grants_;
  const LlmTask task_;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_SESSION_LLM_GRANTS_H_
