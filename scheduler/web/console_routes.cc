#include "scheduler/web/console_routes.h"

#include <httplib.h>

#include <string>

#include "scheduler/web/console_assets.h"

namespace taskboard::web {
namespace {

std::string ContentTypeOf(std::string_view path) {
  if (path.ends_with(".html")) return "text/html; charset=utf-8";
  if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

void Secure(httplib::Response& response) {
  response.set_header("Content-Security-Policy",
                      "default-src 'none'; script-src 'self'; style-src 'self'; "
                      "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                      "form-action 'none'; frame-ancestors 'none'");
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Referrer-Policy", "no-referrer");
}

const ConsoleAsset* Find(std::string_view path) {
  for (const ConsoleAsset& asset : ConsoleAssets()) {
    if (asset.path == path) return &asset;
  }
  return nullptr;
}

void Serve(httplib::Response& response, std::string_view path) {
  const ConsoleAsset* asset = Find(path);
  Secure(response);
  if (asset == nullptr) {
    response.status = 404;
    response.set_content(
        ConsoleAssets().empty()
            ? "This scheduler was built without its web console: scripts/install-deps.sh "
              "installs web/console's packages and scripts/build.sh builds it in.\n"
            : "No such console file.\n",
        "text/plain; charset=utf-8");
    return;
  }
  // The page may change with every build; the script and stylesheet are
  // small. No caching keeps a new scheduler's console consistent.
  response.set_header("Cache-Control", "no-cache");
  response.set_content(std::string(asset->body), ContentTypeOf(path));
}

}  // namespace

void RouteConsole(httplib::Server& http) {
  http.Get("/", [](const httplib::Request&, httplib::Response& response) {
    Serve(response, "/index.html");
  });
  http.Get(R"(/assets/([a-z]{1,16}\.(js|css)))",
           [](const httplib::Request& request, httplib::Response& response) {
             Serve(response, "/" + std::string(request.matches[1]));
           });
}

}  // namespace taskboard::web
