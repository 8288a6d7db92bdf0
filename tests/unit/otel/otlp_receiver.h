#ifndef TASKBOARD_TESTS_UNIT_OTEL_OTLP_RECEIVER_H_
#define TASKBOARD_TESTS_UNIT_OTEL_OTLP_RECEIVER_H_

// A real OTLP/HTTP receiver in the test process (cpp-httplib, 127.0.0.1,
// port 0): POST /v1/traces bodies are decoded with the generated OTLP
// classes and kept, with their headers, and each is answered with the next
// scripted reply (200 once the script runs out).

#include <deque>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "httplib.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace taskboard::otel::testing {

using ::opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest;
using ::opentelemetry::proto::collector::trace::v1::ExportTraceServiceResponse;

struct ReceiverReply {
  int status = 200;
  std::string body;
  std::string retry_after;
};

struct ReceivedRequest {
  std::map<std::string, std::string> headers;
  bool decoded = false;
  ExportTraceServiceRequest request;
};

class OtlpReceiver {
 public:
  explicit OtlpReceiver(std::deque<ReceiverReply> script = {}) : script_(std::move(script)) {
    server_.Post("/v1/traces", [this](const httplib::Request& request, httplib::Response& reply) {
      Answer(request, reply);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs is lost (httplib 0.11 has no
    // wait_until_ready): wait for it to be running.
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (!server_.is_running() && absl::Now() < deadline) std::this_thread::yield();
  }
  ~OtlpReceiver() {
    server_.stop();
    thread_.join();
  }

  // The base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT would name it.
  std::string endpoint() const { return absl::StrCat("http://127.0.0.1:", port_); }
  std::string traces_url() const { return endpoint() + "/v1/traces"; }

  std::vector<ReceivedRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

  // Spans received in all requests so far.
  int SpanCount() const {
    absl::MutexLock lock(&mu_);
    return span_count_;
  }

  // Whether `count` spans arrived within `timeout`.
  bool WaitForSpans(int count, absl::Duration timeout) const {
    absl::MutexLock lock(&mu_);
    auto enough = [this, count]() { return span_count_ >= count; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }

  // Spans received in requests answered 2xx.
  int span_count() const {
    absl::MutexLock lock(&mu_);
    return span_count_;
  }

  int requests_answered() const {
    absl::MutexLock lock(&mu_);
    return static_cast<int>(requests_.size());
  }

 private:
  void Answer(const httplib::Request& request, httplib::Response& reply) {
    ReceivedRequest received;
    for (const auto& [name, value] : request.headers) received.headers[name] = value;
    received.decoded = received.request.ParseFromString(request.body);
    ReceiverReply scripted;
    {
      absl::MutexLock lock(&mu_);
      if (!script_.empty()) {
        scripted = script_.front();
        script_.pop_front();
      }
      if (scripted.status >= 200 && scripted.status < 300) {
        for (const auto& resource : received.request.resource_spans()) {
          for (const auto& scope : resource.scope_spans()) span_count_ += scope.spans_size();
        }
      }
      requests_.push_back(std::move(received));
    }
    reply.status = scripted.status;
    if (!scripted.retry_after.empty()) reply.set_header("Retry-After", scripted.retry_after);
    reply.set_content(scripted.body, "application/x-protobuf");
  }

  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::deque<ReceiverReply> script_ ABSL_GUARDED_BY(mu_);
  std::vector<ReceivedRequest> requests_ ABSL_GUARDED_BY(mu_);
  int span_count_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::otel::testing

#endif  // TASKBOARD_TESTS_UNIT_OTEL_OTLP_RECEIVER_H_
