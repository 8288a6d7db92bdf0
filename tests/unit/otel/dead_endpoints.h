#ifndef TASKBOARD_TESTS_UNIT_OTEL_DEAD_ENDPOINTS_H_
#define TASKBOARD_TESTS_UNIT_OTEL_DEAD_ENDPOINTS_H_

// Collectors that do not work, on 127.0.0.1 port 0, for the exporter's
// failure tests:
//   RefusingPort: bound but not listening, so every connection is refused
//     (the port stays reserved, so nothing else can take it meanwhile).
//   StalledPort: listening but never accepting nor reading: connections
//     complete and the request is sent, and no answer ever comes.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace taskboard::otel::testing {

class LoopbackSocket {
 public:
  explicit LoopbackSocket(bool listening) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = 0;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      return;
    }
    if (listening && listen(fd_, 64) != 0) return;
    socklen_t size = sizeof(address);
    if (getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~LoopbackSocket() {
    if (fd_ >= 0) close(fd_);
  }
  LoopbackSocket(const LoopbackSocket&) = delete;
  LoopbackSocket& operator=(const LoopbackSocket&) = delete;

  int port() const { return port_; }
  std::string endpoint() const { return absl::StrCat("http://127.0.0.1:", port_); }
  std::string traces_url() const { return endpoint() + "/v1/traces"; }

 private:
  int fd_ = -1;
  int port_ = -1;
};

struct RefusingPort : LoopbackSocket {
  RefusingPort() : LoopbackSocket(/*listening=*/false) {}
};

struct StalledPort : LoopbackSocket {
  StalledPort() : LoopbackSocket(/*listening=*/true) {}
};

}  // namespace taskboard::otel::testing

#endif  // TASKBOARD_TESTS_UNIT_OTEL_DEAD_ENDPOINTS_H_
