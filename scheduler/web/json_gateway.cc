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

absl::Status UnknownMethod(absl::string_view method) {
  return absl::NotFoundError(absl::StrCat("the Scheduler API has no method '", method,
                                          "'; it has: ", MethodNames(), " (docs/http-api.md)"));
}

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

absl::StatusOr<std::string> ToJson(const pb::Message& message) {
  std::string json;
  const pb::util::Status printed = pb::util::MessageToJsonString(message, &json);
  if (!printed.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot write the response as JSON: ", std::string(printed.message())));
  }
  return json;
}

void Prepare(grpc::ClientContext& context, absl::string_view authorization,
             absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (!authorization.empty()) context.AddMetadata("authorization", std::string(authorization));
}

}  // namespace

JsonGateway::JsonGateway(std::shared_ptr<grpc::Channel> channel, GatewayOptions options)
    : channel_(std::move(channel)), options_(options) {}

JsonGateway::~JsonGateway() { Shutdown(); }

MethodKind JsonGateway::KindOf(absl::string_view method) {
  const pb::MethodDescriptor* found = FindMethod(method);
  if (found == nullptr) return MethodKind::kUnknown;
  return found->server_streaming() ? MethodKind::kServerStream : MethodKind::kUnary;
}

absl::StatusOr<std::string> JsonGateway::Call(absl::string_view method, absl::string_view json,
                                              absl::string_view authorization) {
  const pb::MethodDescriptor* found = FindMethod(method);
  if (found == nullptr || found->server_streaming()) return UnknownMethod(method);
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return absl::UnavailableError("the scheduler is shutting down");
  }
  absl::StatusOr<std::unique_ptr<pb::Message>> request = ParseRequest(*found, json);
  if (!request.ok()) return request.status();
  const std::string bytes = (*request)->SerializeAsString();
  grpc::Slice slice(bytes);
  grpc::ByteBuffer request_buffer(&slice, 1);
  grpc::ByteBuffer response_buffer;

  grpc::ClientContext context;
  Prepare(context, authorization, options_.call_timeout);
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

struct JsonStream::Call {
  grpc::ClientContext context;
  std::unique_ptr<v1::Scheduler::Stub> stub;
  std::unique_ptr<grpc::ClientReader<v1::WatchRunResponse>> reader;
  // Read by OpenStream, handed out by the first Next.
  std::optional<v1::WatchRunResponse> first;
  absl::Duration timeout;
};

JsonStream::JsonStream(JsonGateway* gateway, std::unique_ptr<Call> call)
    : gateway_(gateway), call_(std::move(call)) {}

JsonStream::~JsonStream() {
  if (!finished_) {
    call_->context.TryCancel();
    Finish().IgnoreError();
  }
}

bool JsonStream::Next(std::string& json, int64_t& position) {
  v1::WatchRunResponse response;
  if (call_->first.has_value()) {
    response = *std::move(call_->first);
    call_->first.reset();
  } else if (finished_ || !call_->reader->Read(&response)) {
    return false;
  }
  position = response.events_size() > 0 ? response.events(response.events_size() - 1).seq()
                                        : response.event().seq();
  absl::StatusOr<std::string> out = ToJson(response);
  if (!out.ok()) return false;
  json = *std::move(out);
  return true;
}

absl::Status JsonStream::Finish() {
  if (finished_) return absl::OkStatus();
  finished_ = true;
  const grpc::Status status = call_->reader->Finish();
  gateway_->Close(&call_->context);
  // The stream's own time is up: the reader resumes from where it was.
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::DeadlineExceededError(absl::StrCat("the stream ends after ",
                                                    absl::FormatDuration(call_->timeout),
                                                    "; reconnect with Last-Event-ID to go on"));
  }
  return server::FromGrpcStatus(status);
}

absl::StatusOr<std::unique_ptr<JsonStream>> JsonGateway::OpenStream(absl::string_view method,
                                                                    absl::string_view json,
                                                                    absl::string_view authorization,
                                                                    int64_t resume_after) {
  // WatchRun is the Scheduler's one server stream; a new one needs its stub
  // call here.
  if (method != "WatchRun") return UnknownMethod(method);
  absl::StatusOr<std::unique_ptr<pb::Message>> parsed = ParseRequest(*FindMethod(method), json);
  if (!parsed.ok()) return parsed.status();
  auto& request = static_cast<v1::WatchRunRequest&>(**parsed);
  if (resume_after > request.after_seq()) request.set_after_seq(resume_after);

  auto call = std::make_unique<JsonStream::Call>();
  call->timeout = options_.stream_timeout;
  Prepare(call->context, authorization, options_.stream_timeout);
  if (absl::Status opened = Open(&call->context); !opened.ok()) return opened;
  call->stub = v1::Scheduler::NewStub(channel_);
  call->reader = call->stub->WatchRun(&call->context, request);
  std::unique_ptr<JsonStream> stream(new JsonStream(this, std::move(call)));
  v1::WatchRunResponse first;
  if (!stream->call_->reader->Read(&first)) {
    absl::Status status = stream->Finish();
    if (status.ok()) status = absl::InternalError("the stream ended before its first message");
    return status;
  }
  stream->call_->first = std::move(first);
  return stream;
}

void JsonGateway::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
  for (grpc::ClientContext* context : streams_) context->TryCancel();
}

absl::Status JsonGateway::Open(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return absl::UnavailableError("the scheduler is shutting down");
  if (static_cast<int>(streams_.size()) >= options_.max_streams) {
    return absl::ResourceExhaustedError(
        absl::StrCat(options_.max_streams,
                     " streams are open, the most --http-max-streams allows; close one or raise "
                     "the flag"));
  }
  streams_.insert(context);
  return absl::OkStatus();
}

void JsonGateway::Close(grpc::ClientContext* context) {
  absl::MutexLock lock(&mu_);
  streams_.erase(context);
}

}  // namespace taskboard::web
