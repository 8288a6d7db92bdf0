#include "scheduler/web/console_routes.h"

#include <string>

#include "absl/strings/match.h"
#include "scheduler/web/console_assets.h"
#include "scheduler/web/http_api.h"

namespace taskboard::web {
namespace {

std::string ContentTypeOf(std::string_view path) {
  if (path.ends_with(".html")) return "text/html; charset=utf-8";
  if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

void Secure(http::HttpResponse& response) {
  response.headers.emplace_back("Content-Security-Policy",
                                "default-src 'none'; script-src 'self'; style-src 'self'; "
                                "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                                "form-action 'none'; frame-ancestors 'none'");
  response.headers.emplace_back("Referrer-Policy", "no-referrer");
}

const ConsoleAsset* Find(std::string_view path) {
  for (const ConsoleAsset& asset : ConsoleAssets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

http::HttpResponse Serve(std::string_view path) {
  const ConsoleAsset* asset = Find(path);
  http::HttpResponse response;
  Secure(response);
  if (asset == nullptr) {
    response.status = 404;
    response.body =
        ConsoleAssets().empty()
            ? "This scheduler was built without its web console: scripts/install-deps.sh "
              "installs web/console's packages and scripts/build.sh builds it in.\n"
            : "No such console file.\n";
    return response;
  }
  // The page may change with every build; the script and stylesheet are
  // small. No caching keeps a new scheduler's console consistent.
  response.headers.emplace_back("Cache-Control", "no-cache");
  response.content_type = ContentTypeOf(path);
  response.body = std::string(asset->body);
  return response;
}

http::HttpRoute Get(std::string path, bool prefix, const RequestGuardOptions& guard) {
  http::HttpRoute route;
  route.method = "GET";
  route.path = std::move(path);
  route.prefix = prefix;
  route.admit = [guard](const http::HttpRequest& head) -> std::optional<http::HttpResponse> {
    if (absl::Status host = CheckHost(head, guard); !host.ok()) return JsonError(host);
    return std::nullopt;
  };
  route.handle = [](http::HttpRequest request, std::shared_ptr<http::HttpResponder> responder) {
    std::string_view path = request.path;
    if (path == "/") path = "/index.html";
    if (path.starts_with("/assets/")) path.remove_prefix(std::string_view("/assets").size());
    responder->Respond(Serve(path));
  };
  return route;
}

http::HttpRoute Config(const RequestGuardOptions& guard, const ConsoleOptions& console) {
  http::HttpRoute route = Get("/console-config.json", /*prefix=*/false, guard);
  route.handle = [body = ConsoleConfigJson(console)](
                     http::HttpRequest, std::shared_ptr<http::HttpResponder> responder) {
    http::HttpResponse response;
    Secure(response);
    response.headers.emplace_back("Cache-Control", "no-cache");
    response.content_type = "application/json";
    response.body = body;
    responder->Respond(std::move(response));
  };
  return route;
}

}  // namespace

std::vector<http::HttpRoute> ConsoleRoutes(const RequestGuardOptions& guard,
                                          const ConsoleOptions& console) {
  return {Get("/", /*prefix=*/false, guard), Get("/assets/", /*prefix=*/true, guard),
          Config(guard, console)};
}

}  // namespace taskboard::web
