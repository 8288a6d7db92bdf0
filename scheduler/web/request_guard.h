#ifndef TASKBOARD_SCHEDULER_WEB_REQUEST_GUARD_H_
#define TASKBOARD_SCHEDULER_WEB_REQUEST_GUARD_H_

// What the scheduler's HTTP port checks in a request's head before it reads
// a body, so that a web page a developer happens to visit cannot drive a
// scheduler it was not invited to (docs/security.md#the-http-port):
//
//   Host     on a loopback listener, a loopback name (or an allowed host):
//            a page whose own name was made to resolve to 127.0.0.1 (DNS
//            rebinding) sends its own name and is refused
//   Origin   when a browser sends one, the console's own origin (the
//            request's scheme and Host) or an allowed one: a page on another
//            site cannot post to the API, whatever the content type
//   Content-Type  application/json on API calls, so no cross-site "simple"
//            form or text/plain request reaches a method
//   console token  when set (taskboard dev), every API call carries it
//
// Pure functions over the request's head: no socket, no server.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/http/http_message.h"

namespace taskboard::web {

struct RequestGuardOptions {
  // The listener is bound to a loopback address: Host must name this machine.
  bool loopback_listener = false;
  // --http-allowed-hosts: host names (no port) accepted besides loopback
  // names; when set on any listener, only these (and loopback names on a
  // loopback listener) are accepted.
  std::vector<std::string> allowed_hosts;
  // --http-allowed-origins: origins ("https://console.example.com") whose
  // pages may call the API besides the console's own.
  std::vector<std::string> allowed_origins;
  // --http-console-token-file's token: every API call must carry it as
  // `Authorization: Bearer <token>`. Empty: none.
  std::string console_token;
};

// PERMISSION_DENIED naming the Host and the flag that would admit it.
absl::Status CheckHost(const http::HttpRequest& head, const RequestGuardOptions& options);
// PERMISSION_DENIED naming the Origin and the flag that would admit it.
absl::Status CheckOrigin(const http::HttpRequest& head, const RequestGuardOptions& options);
// INVALID_ARGUMENT saying to send application/json (answered 415).
absl::Status CheckJsonContentType(const http::HttpRequest& head);
// UNAUTHENTICATED saying where the token is, when the console token is set
// and the request does not carry it.
absl::Status CheckConsoleToken(const http::HttpRequest& head, const RequestGuardOptions& options);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_REQUEST_GUARD_H_
