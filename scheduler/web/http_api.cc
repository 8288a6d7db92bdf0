#include "scheduler/web/http_api.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/server/not_leader.h"
#include "scheduler/triggers/hub_signature.h"
#include "scheduler/triggers/retry_after.h"
#include "scheduler/web/http_status.h"
#include "scheduler/web/sse.h"
#include "scheduler/web/watch_bridge.h"
#include "taskboard/v1/triggers.pb.h"

namespace taskboard::web {
namespace {

constexpr absl::string_view kPrefix = "/api/v1/";

// The method a path names ("GetRun" of /api/v1/GetRun), "" when the path is
// not a method's.
absl::string_view MethodOf(absl::string_view path) {
  if (!absl::StartsWith(path, kPrefix)) return "";
  const absl::string_view method = path.substr(kPrefix.size());
  if (method.empty() || method.size() > 64) return "";
  for (const char c : method) {
    if (!absl::ascii_isalpha(static_cast<unsigned char>(c))) return "";
  }
  return method;
}

constexpr absl::string_view kEventsPrefix = "/api/v1/events/";

// The event a path names ("github" of /api/v1/events/github), "" when the
// path is not an event's or the name is not one a trigger can listen to.
absl::string_view EventNameOf(absl::string_view path) {
  if (!absl::StartsWith(path, kEventsPrefix)) return "";
  const absl::string_view name = path.substr(kEventsPrefix.size());
  if (name.empty() || name.size() > 128) return "";
  for (const char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return "";
    }
  }
  return name;
}

// Headers an event does not pass to its triggers: credentials.
bool PrivateHeader(absl::string_view name) {
  return name == "authorization" || name == "cookie" || name == "proxy-authorization";
}

}  // namespace

http::HttpResponse JsonError(const absl::Status& status, int http_status) {
  http::HttpResponse response;
  response.status = http_status != 0 ? http_status : HttpStatusOf(status.code());
  response.content_type = "application/json";
  response.body = ErrorBody(status);
  response.headers.emplace_back("Cache-Control", "no-store");
  // A rate limit says when to come back (docs/http-api.md#events).
  if (auto retry = status.GetPayload(triggers::kRetryAfterPayloadUrl); retry.has_value()) {
    v1::RetryAfter after;
    if (after.ParseFromString(std::string(*retry)) && after.seconds() > 0) {
      response.headers.emplace_back("Retry-After", absl::StrCat(after.seconds()));
    }
  }
  if (std::optional<v1::NotLeader> leader = server::NotLeaderOf(status);
      leader.has_value() && !leader->leader_grpc().empty()) {
    response.headers.emplace_back(server::kLeaderTrailer, leader->leader_grpc());
  }
  return response;
}

HttpApi::HttpApi(JsonGateway& gateway, HttpApiOptions options)
    : gateway_(gateway),
      options_(std::move(options)),
      slots_(options_.max_streams, options_.max_streams_per_tenant),
      calls_(options_.call_threads) {}

HttpApi::~HttpApi() = default;

http::HttpRoute HttpApi::Route() {
  http::HttpRoute route;
  route.method = "POST";
  route.path = std::string(kPrefix);
  route.prefix = true;
  route.max_body_bytes = options_.max_body_bytes;
  route.admit = [this](const http::HttpRequest& head) { return Admit(head); };
  route.too_large = [](int64_t max_body_bytes) {
    return JsonError(
        absl::ResourceExhaustedError(absl::StrCat(
            "the request body is larger than the ", max_body_bytes,
            " bytes --http-max-body-bytes allows; send a smaller request, or raise the flag")),
        413);
  };
  route.handle = [this](http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder) {
    Handle(std::move(request), std::move(responder));
  };
  return route;
}

std::optional<http::HttpResponse> HttpApi::Admit(const http::HttpRequest& head) const {
  if (!options_.refused.ok()) return JsonError(options_.refused);
  if (absl::Status host = CheckHost(head, options_.guard); !host.ok()) return JsonError(host);
  if (absl::Status origin = CheckOrigin(head, options_.guard); !origin.ok()) {
    return JsonError(origin);
  }
  if (absl::StartsWith(head.path, kEventsPrefix)) return AdmitEvent(head);
  const absl::string_view method = MethodOf(head.path);
  if (method.empty() || JsonGateway::KindOf(method) == MethodKind::kUnknown) {
    return JsonError(JsonGateway::UnknownMethod(method.empty() ? head.path : method));
  }
  if (absl::Status type = CheckJsonContentType(head); !type.ok()) return JsonError(type, 415);
  if (absl::Status token = CheckConsoleToken(head, options_.guard); !token.ok()) {
    return JsonError(token);
  }
  return std::nullopt;
}

std::optional<http::HttpResponse> HttpApi::AdmitEvent(const http::HttpRequest& head) const {
  if (EventNameOf(head.path).empty()) {
    return JsonError(absl::NotFoundError(absl::StrCat(
        "'", head.path,
        "' names no event: POST /api/v1/events/<name>, where name uses letters, digits, '_', "
        "'-' and '.' (docs/http-api.md#events)")));
  }
  // GitHub sends the payload as JSON when the webhook's content type is
  // application/json; its form encoding is refused here, saying so.
  if (absl::Status type = CheckJsonContentType(head); !type.ok()) return JsonError(type, 415);
  // A signed event is admitted by its signature, which the scheduler checks
  // against the triggers' secrets; the console token guards everything else.
  if (head.header(triggers::kHubSignatureHeader).empty()) {
    if (absl::Status token = CheckConsoleToken(head, options_.guard); !token.ok()) {
      return JsonError(token);
    }
  }
  return std::nullopt;
}

void HttpApi::Publish(const http::HttpRequest& request,
                      const std::shared_ptr<http::HttpResponder>& responder) {
  v1::PublishEventRequest publish;
  publish.set_name(std::string(EventNameOf(request.path)));
  publish.set_payload(request.body);
  for (const auto& [name, value] : request.headers) {
    if (!PrivateHeader(name)) (*publish.mutable_headers())[name] = value;
  }
  absl::StatusOr<std::string> out =
      gateway_.CallMessage("PublishEvent", publish, request.header("authorization"), request.peer);
  if (!out.ok()) return responder->Respond(JsonError(out.status()));
  http::HttpResponse response;
  response.content_type = "application/json";
  response.body = *std::move(out);
  response.headers.emplace_back("Cache-Control", "no-store");
  responder->Respond(std::move(response));
}

void HttpApi::Handle(http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder) {
  if (pending_calls_.fetch_add(1) >= options_.max_pending_calls) {
    pending_calls_.fetch_sub(1);
    return responder->Respond(JsonError(absl::UnavailableError(absl::StrCat(
        options_.max_pending_calls,
        " API calls are waiting or running, the most --http-max-pending-calls allows; retry "
        "shortly"))));
  }
  // Parsing, the call and the answer's JSON may each take a while on a large
  // body or run: off the server's thread.
  calls_.Run([this, request = std::move(request), responder = std::move(responder)] {
    if (absl::StartsWith(request.path, kEventsPrefix)) {
      Publish(request, responder);
      pending_calls_.fetch_sub(1);
      return;
    }
    const std::string method(MethodOf(request.path));
    if (JsonGateway::KindOf(method) == MethodKind::kServerStream) {
      Stream(request, method, responder);
      pending_calls_.fetch_sub(1);
      return;
    }
    absl::StatusOr<std::string> out =
        gateway_.Call(method, request.body, request.header("authorization"), request.peer,
                      {request.header("traceparent"), request.header("tracestate")});
    pending_calls_.fetch_sub(1);
    if (!out.ok()) return responder->Respond(JsonError(out.status()));
    http::HttpResponse response;
    response.content_type = "application/json";
    response.body = *std::move(out);
    response.headers.emplace_back("Cache-Control", "no-store");
    responder->Respond(std::move(response));
  });
}

void HttpApi::Stream(const http::HttpRequest& request, absl::string_view method,
                     std::shared_ptr<http::HttpResponder> responder) {
  // WatchRun is the Scheduler's one server stream; a new one needs its
  // bridge here.
  if (method != "WatchRun")
    return responder->Respond(JsonError(JsonGateway::UnknownMethod(method)));
  const std::string authorization(request.header("authorization"));
  std::string tenant;
  if (options_.stream_tenant) {
    absl::StatusOr<std::string> admitted = options_.stream_tenant(authorization);
    if (!admitted.ok()) return responder->Respond(JsonError(admitted.status()));
    tenant = *std::move(admitted);
  }
  absl::StatusOr<v1::WatchRunRequest> watch =
      gateway_.WatchRequest(request.body, ParseLastEventId(request.header("last-event-id")));
  if (!watch.ok()) return responder->Respond(JsonError(watch.status()));
  absl::StatusOr<std::unique_ptr<StreamSlots::Slot>> slot = slots_.Acquire(tenant);
  if (!slot.ok()) return responder->Respond(JsonError(slot.status()));
  FollowAsEvents(gateway_, *std::move(watch), authorization, *std::move(slot),
                 std::move(responder));
}

}  // namespace taskboard::web
