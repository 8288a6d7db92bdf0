#ifndef TASKBOARD_COMMON_UNIX_SOCKET_H_
#define TASKBOARD_COMMON_UNIX_SOCKET_H_

// Unix domain stream sockets carrying newline-delimited messages: how a
// worker and the `taskboard tool` processes of its command agents talk
// (worker/session/tool_socket_server.h, tools/cli/tool_command.h). Both sides
// use these helpers, so framing and limits cannot drift apart.

#include <cstddef>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace taskboard {

// An owned file descriptor, closed when it goes away.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { Reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.Release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int Release();
  void Reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Longest path a sockaddr_un can hold on Linux (107 bytes plus the NUL).
constexpr size_t kMaxUnixSocketPath = 107;

// Listening socket at `path` (an old socket file there is replaced).
// Errors: INVALID_ARGUMENT when the path is too long; INTERNAL naming the
// path and the system error otherwise.
absl::StatusOr<UniqueFd> ListenUnixSocket(const std::string& path, int backlog = 64);

// Connected socket. UNAVAILABLE naming the path and the system error (no
// such file, nobody listening, permission denied).
absl::StatusOr<UniqueFd> ConnectUnixSocket(const std::string& path);

// Writes all of `data`; INTERNAL on a write error (EPIPE when the peer left).
absl::Status WriteAll(int fd, absl::string_view data);

// Reads newline-terminated lines from a socket, with a size limit per line.
class LineReader {
 public:
  LineReader(int fd, size_t max_line_bytes) : fd_(fd), max_line_bytes_(max_line_bytes) {}

  // The next line without its '\n'; nullopt at a clean end of stream (a last
  // line without '\n' is returned first). Errors: DEADLINE_EXCEEDED when no
  // full line arrives within `timeout`; RESOURCE_EXHAUSTED when a line is
  // longer than the limit; INTERNAL on a read error.
  absl::StatusOr<std::optional<std::string>> Next(
      absl::Duration timeout = absl::InfiniteDuration());

 private:
  const int fd_;
  const size_t max_line_bytes_;
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_UNIX_SOCKET_H_
