#include "scheduler/web/json_gateway.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/json_depth.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/byte_buffer.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/http_peer.h"
#include "taskboard/v1/scheduler.grpc.pb.h"

namespace taskboard::web {
namespace {

namespace pb = google::protobuf;

const pb::ServiceDescriptor& SchedulerService() {
  return *v1::GetRunRequest::descriptor()->file()->FindServiceByName("Scheduler");
}

const pb::MethodDescriptor* FindMethod(absl::string_view name) {
  const pb::MethodDescriptor* method = SchedulerService().FindMethodByName(std::string(name));
  if (method == nullptr || method->client_streaming()) return nullptr;
  return method;
}

std::string MethodNames() {
  std::string names;
  const pb::ServiceDescriptor& service = SchedulerService();
  for (int i = 0; i < service.method_count(); ++i) {
    if (service.method(i)->client_streaming()) continue;
    absl::StrAppend(&names, names.empty() ? "" : ", ", service.method(i)->name());
  }
  return names;
}

}  // namespace

absl::Status JsonGateway::UnknownMethod(absl::string_view method) {
  return absl::NotFoundError(absl::StrCat("the Scheduler API has no method '", method,
                                          "'; it has: ", MethodNames(), " (docs/http-api.md)"));
}

namespace {

// The request message `json` describes; INVALID_ARGUMENT naming the
// message and what does not fit (an unknown field, a wrong type, JSON
// nested deeper than protobuf's parser allows).
absl::StatusOr<std::unique_ptr<pb::Message>> ParseRequest(const pb::MethodDescriptor& method,
                                                          absl::string_view json) {
  std::unique_ptr<pb::Message> request(
      pb::MessageFactory::generated_factory()->GetPrototype(method.input_type())->New());
  pb::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  // protobuf's parser refuses deep JSON only after seconds of work on a
  // deep enough body; a bracket count first keeps one request from holding
  // a thread. The request's own fields add a few levels around what
  // --max-json-depth bounds (a flow, args), hence the margin.
  constexpr int kEnvelopeDepth = 16;
  if (absl::Status depth = CheckJsonTextDepth(json, MaxJsonDepth() + kEnvelopeDepth); !depth.ok()) {
    return depth;
  }
  const std::string text = json.empty() ? std::string("{}") : std::string(json);
  const pb::util::Status parsed = pb::util::JsonStringToMessage(text, request.get(), options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the body is not a JSON ",
                                                   method.input_type()->full_name(), ": ",
                                                   std::string(parsed.message())));
  }
  return request;
}

void Prepare(grpc::ClientContext& context, absl::string_view authorization, absl::Duration timeout,
             JsonGateway::TraceHeaders trace = {}) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (!authorization.empty()) context.AddMetadata("authorization", std::string(authorization));
  // Bounded and checked by the scheduler when it reads them; a value gRPC
  // would refuse as metadata is left out rather than failing the call.
  auto add = [&context](const char* name, absl::string_view value) {
    if (value.empty() || value.size() > 512) return;
    for (char c : value) {
      if (c < 0x20 || c > 0x7e) return;
    }
    context.AddMetadata(name, std::string(value));
  };
  add("traceparent", trace.traceparent);
  add("tracestate", trace.tracestate);
}

}  // namespace

absl::StatusOr<std::string> JsonGateway::ToJson(const pb::Message& message) {
  std::string json;
  const pb::util::Status printed = pb::util::MessageToJsonString(message, &json);
  if (!printed.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot write the response as JSON: ", std::string(printed.message())));
  }
  return json;
}

JsonGateway::JsonGateway(std::shared_ptr<grpc::Channel> channel, GatewayOptions options)
    : channel_(std::move(channel)), options_(options) {}

JsonGateway::~JsonGateway() { Shutdown(); }

MethodKind JsonGateway::KindOf(absl::string_view method) {
  const pb::MethodDescriptor* found = FindMethod(method);
  if (found == nullptr) return MethodKind::kUnknown;
  return found->server_streaming() ? MethodKind::kServerStream : MethodKind::kUnary;
}

absl::StatusOr<std::string> JsonGateway::Call(absl::string_view method, absl::string_view json,
                                              absl::string_view authorization,
                                              absl::string_view peer, TraceHeaders trace) {
  const pb::MethodDescriptor* found = FindMethod(method);
  if (found == nullptr || found->server_streaming()) return UnknownMethod(method);
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return absl::UnavailableError("the scheduler is shutting down");
  }
  absl::StatusOr<std::unique_ptr<pb::Message>> request = ParseRequest(*found, json);
  if (!request.ok()) return request.status();
  return Invoke(*found, (*request)->SerializeAsString(), authorization, peer, trace);
}

absl::StatusOr<std::string> JsonGateway::CallMessage(absl::string_view method,
                                                     const pb::Message& request,
                                                     absl::string_view authorization,
                                                     absl::string_view peer) {
  const pb::MethodDescriptor* found = FindMethod(method);
  if (found == nullptr || found->server_streaming() ||
      found->input_type() != request.GetDescriptor()) {
    return UnknownMethod(method);
  }
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return absl::UnavailableError("the scheduler is shutting down");
  }
  return Invoke(*found, request.SerializeAsString(), authorization, peer, {});
}

absl::StatusOr<std::string> JsonGateway::Invoke(const pb::MethodDescriptor& method,
                                                const std::string& bytes,
                                                absl::string_view authorization,
                                                absl::string_view peer, TraceHeaders trace) {
  const pb::MethodDescriptor* found = &method;
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;

  grpc::ClientContext context;
  Prepare(context, authorization, options_.call_timeout, trace);
  if (!peer.empty()) context.AddMetadata(server::kHttpPeerHeader, std::string(peer));
  grpc::GenericStub stub(channel_);
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&context, absl::StrCat("/", SchedulerService().full_name(), "/", found->name()),
                 grpc::StubOptions(), &request_buffer, &response_buffer,
                 [&status, &done](grpc::Status result) {
                   status = std::move(result);
                   done.Notify();
                 });
  done.WaitForNotification();
  if (!status.ok()) return server::FromGrpcStatus(status);

  std::vector<grpc::Slice> slices;
  if (!response_buffer.Dump(&slices).ok()) {
    return absl::InternalError("cannot read the scheduler's response");
  }
  std::string response_bytes;
  for (const grpc::Slice& part : slices) {
    response_bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  std::unique_ptr<pb::Message> response(
      pb::MessageFactory::generated_factory()->GetPrototype(found->output_type())->New());
  if (!response->ParseFromString(response_bytes)) {
    return absl::InternalError("cannot parse the scheduler's response");
  }
  return ToJson(*response);
}

absl::StatusOr<v1::WatchRunRequest> JsonGateway::WatchRequest(absl::string_view json,
                                                              int64_t resume_after) const {
  absl::StatusOr<std::unique_ptr<pb::Message>> parsed = ParseRequest(*FindMethod("WatchRun"), json);
  if (!parsed.ok()) return parsed.status();
  v1::WatchRunRequest request = static_cast<v1::WatchRunRequest&>(**parsed);
  if (resume_after > request.after_seq()) request.set_after_seq(resume_after);
  return request;
}

absl::StatusOr<std::shared_ptr<grpc::ClientContext>> JsonGateway::AddStream(
    absl::string_view authorization) {
  auto context = std::make_shared<grpc::ClientContext>();
  Prepare(*context, authorization, options_.stream_timeout);
  absl::MutexLock lock(&mu_);
  if (shut_down_) return absl::UnavailableError("the scheduler is shutting down");
  streams_[context.get()] = context;
  return context;
}

void JsonGateway::RemoveStream(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  streams_.erase(context);
}

void JsonGateway::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  for (auto& [raw, weak] : streams_) {
    if (std::shared_ptr<grpc::ClientContext> context = weak.lock()) context->TryCancel();
  }
  // A cancelled stream ends on gRPC's threads: wait for them to be done with
  // this gateway (and with the slots of the API that called it).
  auto none_open = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return streams_.empty(); };
  mu_.AwaitWithTimeout(absl::Condition(&none_open), absl::Seconds(10));
}

}  // namespace taskboard::web
