#include "scheduler/web/request_guard.h"

#include <openssl/crypto.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/loopback_host.h"

namespace taskboard::web {
namespace {

// "example.com:8080" -> "example.com", "[::1]:80" -> "[::1]".
std::string HostName(absl::string_view host) {
  host = absl::StripAsciiWhitespace(host);
  if (absl::StartsWith(host, "[")) {
    const size_t close = host.find(']');
    return absl::AsciiStrToLower(close == absl::string_view::npos ? host
                                                                  : host.substr(0, close + 1));
  }
  const size_t colon = host.rfind(':');
  return absl::AsciiStrToLower(colon == absl::string_view::npos ? host : host.substr(0, colon));
}

bool Listed(const std::vector<std::string>& list, absl::string_view value) {
  for (const std::string& entry : list) {
    if (absl::EqualsIgnoreCase(entry, value)) return true;
  }
  return false;
}

}  // namespace

absl::Status CheckHost(const http::HttpRequest& head, const RequestGuardOptions& options) {
  const absl::string_view host = head.header("host");
  // HTTP/1.0 clients may send none; every browser sends one.
  if (host.empty()) return absl::OkStatus();
  const std::string name = HostName(host);
  if (options.loopback_listener && IsLoopbackHost(name)) return absl::OkStatus();
  if (Listed(options.allowed_hosts, name)) return absl::OkStatus();
  if (!options.loopback_listener && options.allowed_hosts.empty()) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "this scheduler does not answer for the host '", name,
      "': a page whose name resolves to this machine is not this scheduler's console; reach it "
      "as localhost, or list the name in --http-allowed-hosts"));
}

absl::Status CheckOrigin(const http::HttpRequest& head, const RequestGuardOptions& options) {
  const absl::string_view origin = head.header("origin");
  // Not a browser (curl, the CLI, a script): nothing another site can forge.
  if (origin.empty()) return absl::OkStatus();
  const std::string own = absl::StrCat(head.tls ? "https://" : "http://", head.header("host"));
  if (absl::EqualsIgnoreCase(origin, own) || Listed(options.allowed_origins, origin)) {
    return absl::OkStatus();
  }
  return absl::PermissionDeniedError(
      absl::StrCat("requests from pages at '", origin, "' are refused: only the console at ", own,
                   " may call this API from a browser; list the origin in "
                   "--http-allowed-origins to allow it"));
}

absl::Status CheckJsonContentType(const http::HttpRequest& head) {
  absl::string_view type = head.header("content-type");
  type = absl::StripAsciiWhitespace(type.substr(0, type.find(';')));
  if (absl::EqualsIgnoreCase(type, "application/json")) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the API takes JSON: send the request with Content-Type: application/json (got ",
                   type.empty() ? std::string("none") : absl::StrCat("'", type, "'"), ")"));
}

absl::Status CheckConsoleToken(const http::HttpRequest& head, const RequestGuardOptions& options) {
  if (options.console_token.empty()) return absl::OkStatus();
  absl::string_view given = head.header("authorization");
  const bool bearer = absl::ConsumePrefix(&given, "Bearer ");
  if (bearer && given.size() == options.console_token.size() &&
      CRYPTO_memcmp(given.data(), options.console_token.data(), given.size()) == 0) {
    return absl::OkStatus();
  }
  return absl::UnauthenticatedError(
      "this scheduler's HTTP API needs its console token: open the console link that "
      "`taskboard dev` printed, or send Authorization: Bearer <the token in its "
      "--http-console-token-file>");
}

}  // namespace taskboard::web
