#include "scheduler/web/http_mcp.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/mcp/server_session.h"
#include "scheduler/mcp/taskboard_tools.h"
#include "scheduler/web/gateway_calls.h"

namespace taskboard::web {
namespace {

constexpr char kPath[] = "/mcp";

}  // namespace

HttpMcp::HttpMcp(JsonGateway& gateway, HttpApiOptions options)
    : gateway_(gateway), options_(std::move(options)), calls_(options_.call_threads) {}

HttpMcp::~HttpMcp() = default;

std::vector<http::HttpRoute> HttpMcp::Routes() {
  http::HttpRoute post;
  post.method = "POST";
  post.path = kPath;
  post.max_body_bytes = options_.max_body_bytes;
  post.admit = [this](const http::HttpRequest& head) { return Admit(head); };
  post.too_large = [](int64_t max_body_bytes) {
    return JsonError(absl::ResourceExhaustedError(
                         absl::StrCat("the MCP message is larger than the ", max_body_bytes,
                                      " bytes --http-max-body-bytes allows")),
                     413);
  };
  post.handle = [this](http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder) {
    Handle(std::move(request), std::move(responder));
  };
  http::HttpRoute get;
  get.method = "GET";
  get.path = kPath;
  get.handle = [](http::HttpRequest, std::shared_ptr<http::HttpResponder> responder) {
    http::HttpResponse response = JsonError(
        absl::UnimplementedError("this MCP endpoint opens no server-sent event stream: POST each "
                                 "JSON-RPC message to /mcp (docs/mcp.md)"),
        405);
    response.headers.emplace_back("Allow", "POST");
    responder->Respond(std::move(response));
  };
  return {std::move(post), std::move(get)};
}

std::optional<http::HttpResponse> HttpMcp::Admit(const http::HttpRequest& head) const {
  if (!options_.refused.ok()) return JsonError(options_.refused);
  if (absl::Status host = CheckHost(head, options_.guard); !host.ok()) return JsonError(host);
  if (absl::Status origin = CheckOrigin(head, options_.guard); !origin.ok()) {
    return JsonError(origin);
  }
  if (absl::Status type = CheckJsonContentType(head); !type.ok()) return JsonError(type, 415);
  if (absl::Status token = CheckConsoleToken(head, options_.guard); !token.ok()) {
    return JsonError(token);
  }
  // MCP 2025-06-18, "Protocol Version Header": an unsupported revision is a
  // 400; an absent header is taken for one the server speaks.
  if (const absl::string_view version = head.header("mcp-protocol-version");
      !version.empty() && !mcp::IsSupportedProtocolVersion(version)) {
    return JsonError(absl::InvalidArgumentError(
                         absl::StrCat("MCP-Protocol-Version '", version.substr(0, 40),
                                      "' is not supported; this server speaks ",
                                      mcp::kLatestProtocolVersion, " and earlier (docs/mcp.md)")),
                     400);
  }
  // The token is checked before any message is handled, so a client with a
  // bad one learns it at initialize (401), not at its first tool call.
  if (options_.stream_tenant) {
    absl::StatusOr<std::string> tenant = options_.stream_tenant(head.header("authorization"));
    if (!tenant.ok()) return JsonError(tenant.status());
  }
  return std::nullopt;
}

void HttpMcp::Handle(http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder) {
  if (pending_calls_.fetch_add(1) >= options_.max_pending_calls) {
    pending_calls_.fetch_sub(1);
    return responder->Respond(JsonError(absl::UnavailableError(absl::StrCat(
        options_.max_pending_calls,
        " MCP calls are waiting or running, the most --http-max-pending-calls allows; retry "
        "shortly"))));
  }
  calls_.Run([this, request = std::move(request), responder = std::move(responder)] {
    GatewayCalls scheduler(gateway_, std::string(request.header("authorization")));
    mcp::TaskboardTools tools(scheduler);
    mcp::ServerOptions session_options;
    session_options.max_message_bytes = static_cast<size_t>(options_.max_body_bytes);
    session_options.require_initialize = false;
    mcp::ServerSession session(std::move(session_options), tools);
    std::optional<std::string> answer = session.Handle(request.body);
    pending_calls_.fetch_sub(1);
    http::HttpResponse response;
    response.headers.emplace_back("Cache-Control", "no-store");
    if (!answer.has_value()) {
      response.status = 202;
      response.content_type = "application/json";
      return responder->Respond(std::move(response));
    }
    response.content_type = "application/json";
    response.body = *std::move(answer);
    responder->Respond(std::move(response));
  });
}

}  // namespace taskboard::web
