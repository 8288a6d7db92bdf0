#include "scheduler/web/http_api.h"

#include <httplib.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/web/http_status.h"
#include "scheduler/web/json_gateway.h"
#include "scheduler/web/sse.h"

namespace taskboard::web {
namespace {

constexpr char kJson[] = "application/json";

void ReplyError(httplib::Response& response, const absl::Status& status) {
  response.status = HttpStatusOf(status.code());
  response.set_content(ErrorBody(status), kJson);
}

// Streams `stream` as server-sent events: an `message` frame per response
// (id: its resume position), then one `end` frame with the final status
// ({"code": "ok"} when the run's stream simply ended).
void ServeEvents(httplib::Response& response, std::unique_ptr<JsonStream> stream) {
  std::shared_ptr<JsonStream> shared = std::move(stream);
  response.set_header("Cache-Control", "no-store");
  response.set_chunked_content_provider(
      "text/event-stream", [shared](size_t /*offset*/, httplib::DataSink& sink) {
        std::string json;
        int64_t position = 0;
        while (shared->Next(json, position)) {
          const std::string frame = SseFrame("message", position, json);
          if (!sink.write(frame.data(), frame.size())) return false;  // the reader left
        }
        const absl::Status status = shared->Finish();
        const std::string frame = SseFrame("end", std::nullopt, ErrorBody(status));
        sink.write(frame.data(), frame.size());
        sink.done();
        return true;
      });
}

}  // namespace

void RouteHttpApi(httplib::Server& http, JsonGateway& gateway, HttpApiOptions options) {
  http.set_payload_max_length(static_cast<size_t>(options.max_body_bytes));
  http.Post(R"(/api/v1/([A-Za-z]{1,64}))", [&gateway, refused = options.refused](
                                               const httplib::Request& request,
                                               httplib::Response& response) {
    if (!refused.ok()) return ReplyError(response, refused);
    const std::string method = request.matches[1];
    const std::string authorization = request.get_header_value("Authorization");
    switch (JsonGateway::KindOf(method)) {
      case MethodKind::kUnary: {
        absl::StatusOr<std::string> out = gateway.Call(method, request.body, authorization);
        if (!out.ok()) return ReplyError(response, out.status());
        response.set_header("Cache-Control", "no-store");
        response.set_content(*std::move(out), kJson);
        return;
      }
      case MethodKind::kServerStream: {
        absl::StatusOr<std::unique_ptr<JsonStream>> stream =
            gateway.OpenStream(method, request.body, authorization,
                               ParseLastEventId(request.get_header_value("Last-Event-ID")));
        if (!stream.ok()) return ReplyError(response, stream.status());
        return ServeEvents(response, *std::move(stream));
      }
      case MethodKind::kUnknown:
        break;
    }
    ReplyError(response, gateway.Call(method, "", "").status());
  });
  // Everything else under /api/: say what is there rather than a bare 404.
  http.set_error_handler([](const httplib::Request& request, httplib::Response& response) {
    if (request.path.rfind("/api/", 0) != 0 || !response.body.empty()) return;
    if (response.status == 413) {
      // cpp-httplib caps form bodies at 8 KiB whatever the limit: curl's -d
      // sends one unless told the body is JSON.
      const bool form =
          request.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) ==
          0;
      ReplyError(response,
                 absl::ResourceExhaustedError(
                     form ? "form bodies are limited to 8 KiB: send the request as JSON "
                            "(Content-Type: application/json)"
                          : "the request body is larger than --http-max-body-bytes allows"));
      response.status = 413;
      return;
    }
    ReplyError(response,
               absl::NotFoundError(absl::StrCat(
                   request.method, " ", request.path,
                   " is not part of the API: call POST /api/v1/<Method> (docs/http-api.md)")));
  });
}

}  // namespace taskboard::web
