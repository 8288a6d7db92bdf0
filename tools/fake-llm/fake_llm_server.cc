#include "tools/fake-llm/fake_llm_server.h"

#include <httplib.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace taskboard::fake_llm {
namespace {

void Send(const HttpReply& reply, httplib::Response& response) {
  response.status = reply.status;
  for (const auto& [name, value] : reply.headers) response.set_header(name, value);
  if (reply.events.empty()) {
    response.set_content(reply.body, reply.content_type);
    return;
  }
  response.set_chunked_content_provider(
      reply.content_type, [events = reply.events](size_t /*offset*/, httplib::DataSink& sink) {
        for (const std::string& event : events) {
          if (!sink.write(event.data(), event.size())) return false;
        }
        sink.done();
        return true;
      });
}

}  // namespace

absl::StatusOr<std::unique_ptr<FakeLlmServer>> FakeLlmServer::Start(
    Script script, const FakeLlmServerOptions& options) {
  std::unique_ptr<FakeLlmServer> server(new FakeLlmServer());
  absl::StatusOr<std::unique_ptr<RequestLog>> log = RequestLog::Open(options.log_path);
  if (!log.ok()) return log.status();
  server->log_ = std::move(*log);
  server->handler_ = std::make_unique<ChatHandler>(
      std::move(script), server->log_.get(), [] { return absl::Now(); }, options.limits);
  server->http_ = std::make_unique<httplib::Server>();
  server->Route();
  if (options.port == 0) {
    server->port_ = server->http_->bind_to_any_port(options.host);
  } else if (server->http_->bind_to_port(options.host, options.port)) {
    server->port_ = options.port;
  } else {
    server->port_ = -1;
  }
  if (server->port_ <= 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.host, ":", options.port,
                                               ": pick a free port, or port 0 for any"));
  }
  server->serving_ = std::thread([http = server->http_.get()] { http->listen_after_bind(); });
  // httplib's stop() is a no-op until the accept loop runs, so Shutdown could
  // miss it: return only once it runs.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!server->http_->is_running()) {
    if (absl::Now() > deadline) {
      return absl::UnavailableError("the HTTP accept loop did not start within 10 s");
    }
    absl::SleepFor(absl::Milliseconds(1));
  }
  return server;
}

FakeLlmServer::~FakeLlmServer() { Shutdown(); }

void FakeLlmServer::Shutdown() {
  if (!stopping_.HasBeenNotified()) stopping_.Notify();
  if (http_ != nullptr) http_->stop();
  if (serving_.joinable()) serving_.join();
}

void FakeLlmServer::Route() {
  auto chat = [this](const httplib::Request& request, httplib::Response& response) {
    ChatAnswer answer = handler_->Handle(request.path, request.body);
    if (answer.delay_ms > 0) {
      // Cut short by Shutdown so a scripted long delay never holds up exit.
      stopping_.WaitForNotificationWithTimeout(absl::Milliseconds(answer.delay_ms));
    }
    Send(answer.reply, response);
  };
  http_->Post("/v1/chat/completions", chat);
  http_->Post("/chat/completions", chat);
  http_->Get("/requests", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(DumpJson(log_->Entries()), "application/json");
  });
  http_->Get("/stats", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(DumpJson(handler_->Stats()), "application/json");
  });
  http_->Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  httplib::Server::HandlerWithResponse unknown_route = [](const httplib::Request& request,
                                                          httplib::Response& response) {
    if (response.status != 404 || !response.body.empty()) {
      return httplib::Server::HandlerResponse::Unhandled;
    }
    Send(RenderError(404,
                     absl::StrCat("fake-llm: no route for ", request.method, " ", request.path,
                                  "; use POST /v1/chat/completions"),
                     "invalid_request_error", "unknown_url"),
         response);
    return httplib::Server::HandlerResponse::Handled;
  };
  http_->set_error_handler(std::move(unknown_route));
}

}  // namespace taskboard::fake_llm
