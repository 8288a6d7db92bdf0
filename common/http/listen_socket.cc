#include "common/http/listen_socket.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace taskboard::http {
namespace {

absl::Status Unavailable(const std::string& host, int port, absl::string_view what) {
  return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port, ": ", what,
                                             " (pick a free port, or port 0 for any)"));
}

int PortOf(int fd) {
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return -1;
  if (bound.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
}

}  // namespace

absl::StatusOr<ListenSocket> Listen(const std::string& host, int port) {
  // "[::1]" is how an IPv6 host is written before a port.
  std::string name = host;
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
    name = name.substr(1, name.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = absl::StrCat(port);
  if (const int error =
          getaddrinfo(name.empty() ? nullptr : name.c_str(), service.c_str(), &hints, &found);
      error != 0) {
    return Unavailable(host, port, gai_strerror(error));
  }
  std::string last_error = "no address";
  for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
    UniqueFd fd(
        socket(address->ai_family, address->ai_socktype | SOCK_CLOEXEC, address->ai_protocol));
    if (!fd.valid()) {
      last_error = std::strerror(errno);
      continue;
    }
    const int yes = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (bind(fd.get(), address->ai_addr, address->ai_addrlen) != 0 ||
        listen(fd.get(), SOMAXCONN) != 0) {
      last_error = std::strerror(errno);
      continue;
    }
    const int bound_port = PortOf(fd.get());
    freeaddrinfo(found);
    if (bound_port <= 0) return Unavailable(host, port, "cannot read the bound port");
    return ListenSocket{std::move(fd), bound_port};
  }
  freeaddrinfo(found);
  return Unavailable(host, port, last_error);
}

}  // namespace taskboard::http
