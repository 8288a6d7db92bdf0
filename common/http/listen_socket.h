#ifndef TASKBOARD_COMMON_HTTP_LISTEN_SOCKET_H_
#define TASKBOARD_COMMON_HTTP_LISTEN_SOCKET_H_

// A listening TCP socket for HOST:PORT, bound before the server that will
// serve it exists, so that port 0 can be read back and a taken port is an
// error that names the address.

#include <string>

#include "absl/status/statusor.h"
#include "common/unix_socket.h"

namespace taskboard::http {

struct ListenSocket {
  UniqueFd fd;
  int port = 0;
};

// Binds `host` (a name or a numeric IPv4/IPv6 address) and `port` (0: any
// free port) with SO_REUSEADDR (never SO_REUSEPORT: a second process must
// not share the port) and listens. UNAVAILABLE naming the address when it
// cannot be resolved or bound.
absl::StatusOr<ListenSocket> Listen(const std::string& host, int port);

}  // namespace taskboard::http

#endif  // TASKBOARD_COMMON_HTTP_LISTEN_SOCKET_H_
