#ifndef TASKBOARD_TOOLS_BENCH_OTLP_ENDPOINTS_H_
#define TASKBOARD_TOOLS_BENCH_OTLP_ENDPOINTS_H_

// The two collectors the tracing benchmarks export to
// (docs/observability.md#cost): a loopback port that refuses connections
// (a collector that is down) and an in-process OTLP/HTTP receiver
// (cpp-httplib) that answers every POST /v1/traces with 200 without
// decoding it (a collector that keeps up).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "httplib.h"

namespace taskboard::bench {

// A loopback port bound without listening: connections are refused.
class RefusingPort {
 public:
  RefusingPort() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof(address);
    if (bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
      port_ = ntohs(address.sin_port);
    }
  }
  ~RefusingPort() { close(fd_); }
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_, "/v1/traces"); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Answers 200 to every POST /v1/traces; counts the requests.
class Receiver {
 public:
  Receiver() {
    server_.Post("/v1/traces", [this](const httplib::Request&, httplib::Response& response) {
      requests_.fetch_add(1, std::memory_order_relaxed);
      response.status = 200;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();
  }
  ~Receiver() {
    server_.stop();
    thread_.join();
  }
  Receiver(const Receiver&) = delete;
  Receiver& operator=(const Receiver&) = delete;
  std::string url() const { return absl::StrCat("http://127.0.0.1:", port_, "/v1/traces"); }
  int64_t requests() const { return requests_.load(std::memory_order_relaxed); }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::atomic<int64_t> requests_{0};
  std::thread thread_;
};

}  // namespace taskboard::bench

#endif  // TASKBOARD_TOOLS_BENCH_OTLP_ENDPOINTS_H_
