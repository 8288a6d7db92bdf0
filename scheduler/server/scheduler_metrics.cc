#include "scheduler/server/scheduler_metrics.h"

#include <string>

#include "absl/status/status.h"
#include "common/metrics/builder.h"

namespace taskboard::server {
namespace {

// gRPC and Abseil share their status codes, so Abseil's names are the
// canonical upper-case ones (OK, NOT_FOUND, ...).
std::string CodeLabel(grpc::StatusCode code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

// Counts the call once, when its status goes out.
class CountingInterceptor final : public grpc::experimental::Interceptor {
 public:
  CountingInterceptor(GrpcRequestMetrics* metrics, const char* method)
      : metrics_(metrics), method_(method) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      metrics_->Count(method_, methods->GetSendStatus().error_code());
    }
    methods->Proceed();
  }

 private:
  GrpcRequestMetrics* const metrics_;
  const char* const method_;
};

class CountingInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CountingInterceptorFactory(GrpcRequestMetrics* metrics) : metrics_(metrics) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    return new CountingInterceptor(metrics_, info->method());
  }

 private:
  GrpcRequestMetrics* const metrics_;
};

}  // namespace

GrpcRequestMetrics::GrpcRequestMetrics(metrics::Registry& registry)
    : requests_(metrics::BuildCounter()
                    .Name("taskboard_scheduler_grpc_requests_total")
                    .Help("gRPC calls the scheduler finished, by method and status code.")
                    .Register(registry)) {}

void GrpcRequestMetrics::Count(const char* method, grpc::StatusCode code) {
  requests_.Add({{"method", method == nullptr ? "" : method}, {"code", CodeLabel(code)}})
      .Increment();
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
GrpcRequestMetrics::InterceptorFactory() {
  return std::make_unique<CountingInterceptorFactory>(this);
}

}  // namespace taskboard::server
