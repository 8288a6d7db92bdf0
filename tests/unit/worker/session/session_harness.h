#ifndef TASKBOARD_TESTS_UNIT_WORKER_SESSION_SESSION_HARNESS_H_
#define TASKBOARD_TESTS_UNIT_WORKER_SESSION_SESSION_HARNESS_H_

// The scaffolding shared by the fixtures that run a whole worker session
// against the scripted gateway (tests/unit/worker/session/fake_gateway.h): agents
// loaded from a temporary directory, the session's Run on a thread, its
// stop at TearDown, and the scheduler's side of the protocol (Welcome,
// Assign, Ack, Expect).

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/optional.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "taskboard/v1/worker.pb.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/worker/session/fake_gateway.h"
#include "worker/agents/agent_registry.h"
#include "worker/agents/command_agent.h"
#include "worker/session/session.h"

namespace taskboard::worker::testing {

class SessionHarness : public ::testing::Test {
 protected:
  void TearDown() override { StopSession(); }

  // Loads the agent files the fixture wrote to `dir_` (plus the built-in
  // ones) into `agents_`.
  void LoadAgents(const CommandAgentOptions& options) {
    absl::StatusOr<std::unique_ptr<AgentRegistry>> agents =
        AgentRegistry::Load(dir_.path(), options);
    ASSERT_THAT(agents, ::taskboard::testing::IsOk());
    agents_ = *std::move(agents);
  }

  // Fills in what every test's session shares (the gateway's address,
  // worker "w1", no heartbeats unless a Welcome asks, short drain and
  // reconnect waits), then runs the session on `run_`.
  void StartSession(SessionOptions options) {
    options.backoff = {.base = absl::Milliseconds(10), .cap = absl::Milliseconds(50)};
    StartSessionAt(std::move(options), gateway_.address());
  }

  // As StartSession, but at `scheduler` (--scheduler's value: one address
  // or several) and with the options' own backoff.
  void StartSessionAt(SessionOptions options, std::string scheduler) {
    options.scheduler_address = std::move(scheduler);
    options.worker_id = "w1";
    options.heartbeat_interval = absl::Hours(1);  // tests that want heartbeats ask
    options.drain_ack_wait = absl::Milliseconds(100);
    session_ = std::make_unique<Session>(options, *agents_);
    run_ = std::thread([this] {
      status_ = session_->Run();
      done_.store(true);
    });
  }

  // Drains the session and ends its streams until Run returns, then joins it
  // and destroys the session (before the fixture's members it refers to). A
  // no-op when the test stopped the session itself.
  void StopSession() {
    if (session_ == nullptr) return;
    session_->Drain(absl::ZeroDuration(), "test over");
    const absl::Time deadline = absl::Now() + absl::Seconds(20);
    while (!done_.load() && absl::Now() < deadline) {
      gateway_.EndAll();
      absl::SleepFor(absl::Milliseconds(10));
    }
    ASSERT_TRUE(done_.load()) << "the session did not stop";
    run_.join();
    session_.reset();
  }

  // Waits for the `index`-th connection and its Hello, then welcomes it.
  FakeStream* Welcome(size_t index, std::vector<std::string> revoked = {},
                      v1::Hello* hello = nullptr, int64_t heartbeat_ms = 0) {
    FakeStream* stream = gateway_.WaitForStream(index);
    EXPECT_NE(stream, nullptr);
    if (stream == nullptr) return nullptr;
    absl::optional<v1::ConnectRequest> first = stream->Next();
    EXPECT_TRUE(first.has_value() && first->has_hello()) << "no Hello";
    if (hello != nullptr && first) *hello = first->hello();
    v1::ConnectResponse welcome;
    welcome.mutable_welcome()->set_scheduler_id("s1");
    welcome.mutable_welcome()->set_heartbeat_interval_ms(heartbeat_ms);
    for (std::string& lease : revoked) welcome.mutable_welcome()->add_revoked_lease_ids(lease);
    stream->Send(welcome);
    return stream;
  }

  static v1::ConnectResponse Assign(const std::string& agent, const std::string& lease,
                                    const std::string& prompt = "hello") {
    v1::ConnectResponse message;
    v1::Assignment* assignment = message.mutable_assignment();
    assignment->set_task_id("task-" + lease);
    assignment->set_lease_id(lease);
    assignment->set_agent(agent);
    assignment->set_prompt(prompt);
    return message;
  }

  static v1::ConnectResponse Ack(const std::string& lease) {
    v1::ConnectResponse message;
    message.mutable_result_ack()->set_task_id("task-" + lease);
    message.mutable_result_ack()->set_lease_id(lease);
    message.mutable_result_ack()->set_accepted(true);
    return message;
  }

  // The next message (output deltas skipped if asked), which must be of `kind`.
  static v1::ConnectRequest Expect(FakeStream* stream, v1::ConnectRequest::MsgCase kind,
                                   bool skip_deltas = false) {
    absl::optional<v1::ConnectRequest> message = stream->Next();
    while (skip_deltas && message && message->has_output_delta()) message = stream->Next();
    EXPECT_TRUE(message.has_value()) << "no message of case " << kind;
    if (!message) return v1::ConnectRequest();
    EXPECT_EQ(message->msg_case(), kind) << message->DebugString();
    return *message;
  }

  ::taskboard::testing::TempDir dir_;
  std::unique_ptr<AgentRegistry> agents_;
  FakeGateway gateway_;
  std::unique_ptr<Session> session_;
  std::thread run_;
  std::atomic<bool> done_{false};
  absl::Status status_;
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_SESSION_SESSION_HARNESS_H_
