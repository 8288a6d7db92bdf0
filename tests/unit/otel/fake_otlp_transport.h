#ifndef TASKBOARD_TESTS_UNIT_OTEL_FAKE_OTLP_TRANSPORT_H_
#define TASKBOARD_TESTS_UNIT_OTEL_FAKE_OTLP_TRANSPORT_H_

// An OtlpTransport that answers each POST with the next scripted result
// (200 once the script runs out) and counts the spans it was sent. Hold(true)
// keeps POSTs in flight until Hold(false) or until the exporter cancels.

#include <deque>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/otel/otlp_transport.h"
#include "opentelemetry/proto/collector/trace/v1/trace_service.pb.h"

namespace taskboard::otel::testing {

class FakeOtlpTransport : public OtlpTransport {
 public:
  explicit FakeOtlpTransport(std::deque<absl::StatusOr<OtlpHttpResponse>> script = {})
      : script_(std::move(script)) {}

  absl::StatusOr<OtlpHttpResponse> Post(const OtlpHttpRequest& request,
                                        const absl::Notification& cancel) override {
    opentelemetry::proto::collector::trace::v1::ExportTraceServiceRequest decoded;
    decoded.ParseFromString(request.body);
    int spans = 0;
    for (const auto& resource : decoded.resource_spans()) {
      for (const auto& scope : resource.scope_spans()) spans += scope.spans_size();
    }
    absl::MutexLock lock(&mu_);
    ++posts_;
    posted_spans_ += spans;
    while (held_ && !cancel.HasBeenNotified()) {
      mu_.AwaitWithTimeout(absl::Condition(this, &FakeOtlpTransport::Released),
                           absl::Milliseconds(5));
    }
    if (cancel.HasBeenNotified() && held_) return absl::CancelledError("cancelled");
    if (script_.empty()) return OtlpHttpResponse{.status = 200};
    absl::StatusOr<OtlpHttpResponse> result = script_.front();
    script_.pop_front();
    return result;
  }

  void Hold(bool hold) {
    absl::MutexLock lock(&mu_);
    held_ = hold;
  }
  int posts() const {
    absl::MutexLock lock(&mu_);
    return posts_;
  }
  int posted_spans() const {
    absl::MutexLock lock(&mu_);
    return posted_spans_;
  }
  // Whether `count` POSTs began within `timeout`.
  bool WaitForPosts(int count, absl::Duration timeout) const {
    absl::MutexLock lock(&mu_);
    auto enough = [this, count]() { return posts_ >= count; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), timeout);
  }

 private:
  bool Released() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return !held_; }

  mutable absl::Mutex mu_;
  std::deque<absl::StatusOr<OtlpHttpResponse>> script_ ABSL_GUARDED_BY(mu_);
  bool held_ ABSL_GUARDED_BY(mu_) = false;
  int posts_ ABSL_GUARDED_BY(mu_) = 0;
  int posted_spans_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::otel::testing

#endif  // TASKBOARD_TESTS_UNIT_OTEL_FAKE_OTLP_TRANSPORT_H_
