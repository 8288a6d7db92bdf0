#ifndef TASKBOARD_COMMON_HTTP_HTTP_MESSAGE_H_
#define TASKBOARD_COMMON_HTTP_HTTP_MESSAGE_H_

// One HTTP request as the services' front door (http_server.h) hands it to a
// route, and the answer a route gives back. Plain values: no socket, no
// library type, so routes are tested without a server.

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace taskboard::http {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query string
  // Header names lower-cased; a repeated header keeps its last value.
  absl::flat_hash_map<std::string, std::string> headers;
  std::string body;
  // The client's address without its port ("127.0.0.1", "::1").
  std::string peer;
  // Whether the request came over TLS.
  bool tls = false;

  // The header's value, "" when absent. `name` in lower case.
  absl::string_view header(absl::string_view name) const {
    auto found = headers.find(name);
    return found == headers.end() ? absl::string_view() : absl::string_view(found->second);
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  static HttpResponse Text(int status, std::string body) {
    HttpResponse response;
    response.status = status;
    response.body = std::move(body);
    return response;
  }
};

}  // namespace taskboard::http

#endif  // TASKBOARD_COMMON_HTTP_HTTP_MESSAGE_H_
