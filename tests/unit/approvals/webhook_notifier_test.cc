// WebhookNotifier with a fake transport: headers and signature, retries
// with the same delivery id, no retry on a 4xx, one delivery per URL, the
// bounded queue dropping the oldest, and the delivery counters. Waits are on
// conditions with deadlines.

#include "scheduler/notify/webhook_notifier.h"

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/engine/state/task_states.h"
#include "scheduler/notify/webhook_signature.h"
#include "tests/testing/prometheus_text.h"

namespace taskboard::notify {
namespace {

using ::testing::Optional;

struct Sent {
  std::string url;
  std::map<std::string, std::string> headers;
  std::string body;
};

// Answers each POST with the next scripted status (200 once they run out);
// Hold(true) keeps POSTs in flight until Hold(false).
class FakeTransport : public WebhookTransport {
 public:
  explicit FakeTransport(std::deque<int> statuses = {}) : statuses_(std::move(statuses)) {}

  absl::StatusOr<int> Post(const WebhookRequest& request,
                           const std::atomic<bool>& cancel) override {
    Sent sent{request.url, {}, request.body};
    for (const std::string& header : request.headers) {
      const size_t colon = header.find(": ");
      sent.headers[header.substr(0, colon)] = header.substr(colon + 2);
    }
    absl::MutexLock lock(&mu_);
    sent_.push_back(std::move(sent));
    // Held until released, or until the notifier cancels (it is stopping).
    while (!released_ && !cancel.load()) {
      mu_.AwaitWithTimeout(absl::Condition(&released_), absl::Milliseconds(5));
    }
    if (statuses_.empty()) return 200;
    int status = statuses_.front();
    statuses_.pop_front();
    if (status < 0) return absl::UnavailableError("connection refused");
    return status;
  }

  void Hold(bool hold) {
    absl::MutexLock lock(&mu_);
    released_ = !hold;
  }
  // Waits up to 10 s for `count` POSTs; all of them so far.
  std::vector<Sent> WaitFor(size_t count) {
    absl::MutexLock lock(&mu_);
    auto enough = [this, count] { return sent_.size() >= count; };
    mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(10));
    return sent_;
  }

 private:
  absl::Mutex mu_;
  std::deque<int> statuses_ ABSL_GUARDED_BY(mu_);
  std::vector<Sent> sent_ ABSL_GUARDED_BY(mu_);
  bool released_ ABSL_GUARDED_BY(mu_) = true;
};

engine::ApprovalEvent Event(const std::string& step = "ok", const std::string& flow_url = "") {
  engine::ApprovalEvent event;
  event.run_id = "run-1";
  event.step_id = step;
  event.flow_name = "release";
  event.flow_webhook = flow_url;
  event.approval.set_prompt("Ship?");
  *event.approval.mutable_waiting_since() = engine::ToTimestamp(1'700'000'000'000);
  return event;
}

class WebhookNotifierTest : public ::testing::Test {
 protected:
  WebhookNotifierOptions Options(FakeTransport& transport) {
    WebhookNotifierOptions options;
    options.url = "https://hooks.example.com/all";
    options.secret = "whsec-test";
    options.retry.base_ms = 10;  // fast retries; the policy's own test covers the real delays
    options.metrics = &metrics_;
    options.transport = &transport;
    return options;
  }
  std::optional<double> Deliveries(const std::string& outcome) {
    return taskboard::testing::SampleValue(
        metrics::SerializeTextFormat(registry_.Collect()),
        "taskboard_approval_webhook_deliveries_total{outcome=\"" + outcome + "\"}");
  }
  // Counters move after the POST returns: wait for them.
  bool WaitForDeliveries(const std::string& outcome, double value) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (absl::Now() < deadline) {
      if (Deliveries(outcome) == value) return true;
      absl::SleepFor(absl::Milliseconds(5));
    }
    return false;
  }

  metrics::Registry registry_;
  engine::ApprovalMetrics metrics_{registry_};
};

TEST_F(WebhookNotifierTest, Delivered_WithEventHeadersAndAValidSignature) {
  FakeTransport transport;
  WebhookNotifier notifier(Options(transport));
  notifier.Notify(Event());
  std::vector<Sent> sent = transport.WaitFor(1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].url, "https://hooks.example.com/all");
  EXPECT_EQ(sent[0].headers["Content-Type"], "application/json");
  EXPECT_EQ(sent[0].headers["X-Taskboard-Event"], "approval.waiting");
  EXPECT_THAT(sent[0].headers["X-Taskboard-Delivery"], ::testing::StartsWith("dlv_"));
  EXPECT_THAT(sent[0].body, ::testing::HasSubstr(sent[0].headers["X-Taskboard-Delivery"]));
  int64_t timestamp = 0;
  ASSERT_TRUE(absl::SimpleAtoi(sent[0].headers["X-Taskboard-Timestamp"], &timestamp));
  EXPECT_NEAR(static_cast<double>(timestamp), absl::ToUnixSeconds(absl::Now()), 60);
  EXPECT_EQ(sent[0].headers["X-Taskboard-Signature"],
            WebhookSignature("whsec-test", timestamp, sent[0].body));
  EXPECT_TRUE(WaitForDeliveries("delivered", 1));
}

TEST_F(WebhookNotifierTest, NoSecret_NoSignatureHeader) {
  FakeTransport transport;
  WebhookNotifierOptions options = Options(transport);
  options.secret.clear();
  WebhookNotifier notifier(options);
  notifier.Notify(Event());
  std::vector<Sent> sent = transport.WaitFor(1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].headers.count("X-Taskboard-Signature"), 0u);
}

TEST_F(WebhookNotifierTest, ServerErrorsThenOk_RetriedWithTheSameDeliveryId) {
  FakeTransport transport({500, -1, 429, 200});
  WebhookNotifier notifier(Options(transport));
  notifier.Notify(Event());
  std::vector<Sent> sent = transport.WaitFor(4);
  ASSERT_EQ(sent.size(), 4u);
  for (const Sent& attempt : sent) {
    EXPECT_EQ(attempt.headers.at("X-Taskboard-Delivery"),
              sent[0].headers.at("X-Taskboard-Delivery"));
    EXPECT_EQ(attempt.body, sent[0].body);
  }
  EXPECT_TRUE(WaitForDeliveries("delivered", 1));
  EXPECT_THAT(Deliveries("retried"), Optional(3.0));
  EXPECT_THAT(Deliveries("failed"), Optional(0.0));
}

TEST_F(WebhookNotifierTest, AttemptsSpent_Failed) {
  FakeTransport transport({503, 503, 503, 503, 503, 503});
  WebhookNotifierOptions options = Options(transport);
  options.retry.attempts = 3;
  WebhookNotifier notifier(options);
  notifier.Notify(Event());
  EXPECT_TRUE(WaitForDeliveries("failed", 1));
  EXPECT_EQ(transport.WaitFor(3).size(), 3u);
  EXPECT_THAT(Deliveries("retried"), Optional(2.0));
}

TEST_F(WebhookNotifierTest, ClientError_NotRetried) {
  FakeTransport transport({404});
  WebhookNotifier notifier(Options(transport));
  notifier.Notify(Event("a"));
  EXPECT_TRUE(WaitForDeliveries("failed", 1));
  // The next event goes through: the 404 was not retried in between.
  notifier.Notify(Event("b"));
  std::vector<Sent> sent = transport.WaitFor(2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_THAT(sent[1].body, ::testing::HasSubstr(R"("step_id":"b")"));
  EXPECT_THAT(Deliveries("retried"), Optional(0.0));
}

TEST_F(WebhookNotifierTest, FlowWebhook_OneDeliveryPerUrlEachItsOwnId) {
  FakeTransport transport;
  WebhookNotifier notifier(Options(transport));
  notifier.Notify(Event("ok", "https://team.example.com/hook"));
  std::vector<Sent> sent = transport.WaitFor(2);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].url, "https://hooks.example.com/all");
  EXPECT_EQ(sent[1].url, "https://team.example.com/hook");
  EXPECT_NE(sent[0].headers["X-Taskboard-Delivery"], sent[1].headers["X-Taskboard-Delivery"]);
}

TEST_F(WebhookNotifierTest, FlowWebhookOnly_NoGlobalUrl) {
  FakeTransport transport;
  WebhookNotifierOptions options = Options(transport);
  options.url.clear();
  WebhookNotifier notifier(options);
  notifier.Notify(Event("ok"));  // no URL at all: nothing to send
  notifier.Notify(Event("next", "https://team.example.com/hook"));
  std::vector<Sent> sent = transport.WaitFor(1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].url, "https://team.example.com/hook");
  EXPECT_THAT(sent[0].body, ::testing::HasSubstr(R"("step_id":"next")"));
}

TEST_F(WebhookNotifierTest, QueueFull_OldestDroppedAndCounted) {
  FakeTransport transport;
  transport.Hold(true);
  WebhookNotifierOptions options = Options(transport);
  options.queue_capacity = 2;
  WebhookNotifier notifier(options);
  notifier.Notify(Event("first"));
  ASSERT_EQ(transport.WaitFor(1).size(), 1u);  // in flight, out of the queue
  notifier.Notify(Event("a"));
  notifier.Notify(Event("b"));
  notifier.Notify(Event("c"));  // the queue holds a and b: a goes
  EXPECT_THAT(Deliveries("dropped"), Optional(1.0));
  transport.Hold(false);
  std::vector<Sent> sent = transport.WaitFor(3);
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_THAT(sent[1].body, ::testing::HasSubstr(R"("step_id":"b")"));
  EXPECT_THAT(sent[2].body, ::testing::HasSubstr(R"("step_id":"c")"));
}

TEST_F(WebhookNotifierTest, Stop_CancelsTheAttemptInFlight) {
  FakeTransport transport;
  transport.Hold(true);
  WebhookNotifier notifier(Options(transport));
  notifier.Notify(Event());
  ASSERT_EQ(transport.WaitFor(1).size(), 1u);
  notifier.Stop();  // returns: the held POST saw the cancel flag
  EXPECT_THAT(Deliveries("delivered"), Optional(0.0));
}

}  // namespace
}  // namespace taskboard::notify
