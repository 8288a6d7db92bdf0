#ifndef TASKBOARD_TESTS_TESTING_RAW_HTTP_H_
#define TASKBOARD_TESTS_TESTING_RAW_HTTP_H_

// A TCP connection to a local HTTP port for tests that play a hostile or
// careless client byte by byte: half-sent heads, endless chunked bodies,
// connections left open, readers that vanish. Header-only; not thread-safe.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace taskboard::testing {

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port`; check connected().
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 &&
        connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      Close();
    }
  }
  ~RawConnection() { Close(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection(RawConnection&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

  bool connected() const { return fd_ >= 0; }

  // Sends all of `bytes`; false when the server has closed (or reset) the
  // connection.
  bool Send(absl::string_view bytes) {
    while (!bytes.empty() && fd_ >= 0) {
      const ssize_t sent = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (sent < 0 && errno == EINTR) continue;
      if (sent <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(sent));
    }
    return fd_ >= 0;
  }

  // Reads until `until` appears in what was read, the server closes, or
  // `timeout` passes; everything read so far (kept across calls).
  const std::string& ReadUntil(absl::string_view until, absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (fd_ >= 0 && !closed_ &&
           (until.empty() || read_.find(until.data(), 0, until.size()) == std::string::npos)) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) break;
      pollfd ready{fd_, POLLIN, 0};
      if (poll(&ready, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) <= 0) continue;
      char buffer[16384];
      const ssize_t got = recv(fd_, buffer, sizeof(buffer), 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        closed_ = true;
        break;
      }
      read_.append(buffer, static_cast<size_t>(got));
    }
    return read_;
  }

  // Whether the server closes the connection within `timeout` (reading and
  // keeping whatever it sends first).
  bool ClosedByServer(absl::Duration timeout) {
    ReadUntil("", timeout);
    return closed_;
  }

  const std::string& read() const { return read_; }

  // Closes without a goodbye: RST when unread bytes remain.
  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  bool closed_ = false;
  std::string read_;
};

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_RAW_HTTP_H_
