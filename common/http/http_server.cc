#include "common/http/http_server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <fstream>
#include <sstream>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/http/http_exchange.h"
#include "common/http/listen_socket.h"

namespace taskboard::http {
namespace {

using internal::Exchange;
using internal::HeaderList;
using internal::Progress;
using internal::QueueResponse;

// How often the loop looks for overdue requests, quiet streams and
// clients that closed a stream's connection.
constexpr absl::Duration kSweepEvery = absl::Milliseconds(250);

absl::StatusOr<std::string> ReadPem(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return absl::UnavailableError(absl::StrCat("cannot read the HTTP port's TLS ", what, " '", path,
                                               "': check that it is a readable PEM file"));
  }
  return text.str();
}

std::string PeerOf(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char text[INET6_ADDRSTRLEN] = {};
  const sockaddr* address = info->client_addr;
  if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr)) {
      inet_ntop(AF_INET, &v6->sin6_addr.s6_addr[12], text, sizeof(text));
    } else {
      inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text));
    }
  } else if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text,
              sizeof(text));
  }
  return text;
}

MHD_Result CollectHeader(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
  auto* headers = static_cast<absl::flat_hash_map<std::string, std::string>*>(cls);
  (*headers)[absl::AsciiStrToLower(key)] = value == nullptr ? "" : value;
  return MHD_YES;
}

// Whether the client has closed its end of `fd` (or the connection broke):
// a read would return end-of-file or an error rather than block.
bool PeerClosed(int fd) {
  char byte;
  const ssize_t got = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (got == 0) return true;
  return got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
}

}  // namespace

// Everything that runs on the server's thread. libmicrohttpd calls back into
// it with the Loop as closure; its per-connection and per-request state
// (Connection, Exchange) is touched there only, except what Exchange and
// StreamBody guard with their own locks.
class HttpServer::Loop {
 public:
  explicit Loop(HttpServerOptions options) : options_(std::move(options)) {
    for (const auto& header : options_.headers) headers_.push_back(header);
  }
  ~Loop() {
    if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
    if (epoll_fd_ >= 0) close(epoll_fd_);
    if (wake_fd_ >= 0) close(wake_fd_);
  }

  absl::Status Start(ListenSocket socket);
  void Run();
  void Stop() {
    stopping_.store(true);
    waker_.Wake();
  }
  int connections() const { return open_.load(std::memory_order_relaxed); }

 private:
  // One TCP connection.
  struct Connection {
    int fd = -1;
    enum class Phase { kHead, kBody, kAnswer } phase = Phase::kHead;
    absl::Time since;  // when the phase began
    bool cut = false;  // shut down for running out its time
    std::shared_ptr<Exchange> exchange;
  };

  static MHD_Result OnAccess(void* cls, MHD_Connection* connection, const char* url,
                             const char* method, const char* version, const char* upload_data,
                             size_t* upload_data_size, void** request_context) {
    return static_cast<Loop*>(cls)->Access(connection, url, method, upload_data, upload_data_size,
                                           request_context);
  }
  static void OnCompleted(void* cls, MHD_Connection* connection, void** request_context,
                          MHD_RequestTerminationCode /*why*/) {
    static_cast<Loop*>(cls)->Completed(connection, request_context);
  }
  static void OnConnection(void* cls, MHD_Connection* connection, void** socket_context,
                           MHD_ConnectionNotificationCode what) {
    static_cast<Loop*>(cls)->ConnectionChanged(connection, socket_context, what);
  }

  MHD_Result Access(MHD_Connection* connection, const char* url, const char* method,
                    const char* upload_data, size_t* upload_data_size, void** request_context);
  MHD_Result Begin(MHD_Connection* connection, const char* url, const char* method,
                   void** request_context);
  void Completed(MHD_Connection* connection, void** request_context);
  void ConnectionChanged(MHD_Connection* connection, void** socket_context,
                         MHD_ConnectionNotificationCode what);
  Connection* ConnectionOf(MHD_Connection* connection);
  const HttpRoute* Match(const HttpRequest& head, HttpResponse& refusal) const;
  bool Refuse(MHD_Connection* connection, Exchange& exchange, const HttpResponse& response);
  void Sweep(absl::Time now);
  void Teardown();

  const HttpServerOptions options_;
  HeaderList headers_;
  std::string tls_cert_;
  std::string tls_key_;
  MHD_Daemon* daemon_ = nullptr;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;
  internal::Waker waker_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> open_{0};
  absl::flat_hash_map<MHD_Connection*, Connection*> connections_;
};

absl::Status HttpServer::Loop::Start(ListenSocket socket) {
  const HttpLimits& limits = options_.limits;
  const bool tls = !options_.tls_cert_file.empty();
  if (tls) {
    absl::StatusOr<std::string> cert = ReadPem(options_.tls_cert_file, "certificate");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem(options_.tls_key_file, "key");
    if (!key.ok()) return key.status();
    tls_cert_ = *std::move(cert);
    tls_key_ = *std::move(key);
  }
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_LISTEN_SOCKET, socket.fd.get(), nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, limits.max_connections, nullptr},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits.max_connections_per_address, nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT,
       static_cast<intptr_t>(std::max<int64_t>(1, absl::ToInt64Seconds(limits.idle_timeout))),
       nullptr},
      // The pool each connection reads its request line and headers into;
      // a head that does not fit is answered 431 (or 413) by libmicrohttpd.
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(limits.max_header_bytes), nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&Loop::OnCompleted), this},
      {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&Loop::OnConnection), this},
  };
  if (tls) {
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(tls_cert_.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(tls_key_.c_str())});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  // Driven from this class's own thread (not MHD's internal one) so that
  // the sweep runs on the thread that owns every connection.
  const unsigned int flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | (tls ? MHD_USE_TLS : 0);
  daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, &Loop::OnAccess, this, MHD_OPTION_ARRAY,
                             items.data(), MHD_OPTION_END);
  if (daemon_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "the ", options_.name, " server did not start",
        tls ? ": check that the TLS certificate and key are PEM files that match" : ""));
  }
  socket.fd.Release();  // the daemon owns and closes it now
  const MHD_DaemonInfo* epoll = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_EPOLL_FD);
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  waker_.fd = wake_fd_;
  if (epoll == nullptr || epoll_fd_ < 0 || wake_fd_ < 0) {
    return absl::UnavailableError(absl::StrCat("the ", options_.name,
                                               " server's event loop did "
                                               "not start: out of file descriptors?"));
  }
  for (const int fd : {epoll->epoll_fd, wake_fd_}) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &event);
  }
  return absl::OkStatus();
}

void HttpServer::Loop::Run() {
  absl::Time next_sweep = absl::Now() + kSweepEvery;
  while (!stopping_.load()) {
    int wait_ms = static_cast<int>(absl::ToInt64Milliseconds(kSweepEvery));
    MHD_UNSIGNED_LONG_LONG mhd_wait = 0;
    if (MHD_get_timeout(daemon_, &mhd_wait) == MHD_YES) {
      wait_ms = static_cast<int>(std::min<MHD_UNSIGNED_LONG_LONG>(mhd_wait, wait_ms));
    }
    epoll_event events[4];
    epoll_wait(epoll_fd_, events, 4, wait_ms);
    uint64_t drained = 0;
    [[maybe_unused]] ssize_t got = read(wake_fd_, &drained, sizeof(drained));
    MHD_run(daemon_);
    if (const absl::Time now = absl::Now(); now >= next_sweep) {
      Sweep(now);
      next_sweep = now + kSweepEvery;
    }
  }
  Teardown();
}

void HttpServer::Loop::Sweep(absl::Time now) {
  const HttpLimits& limits = options_.limits;
  for (auto& [handle, connection] : connections_) {
    const absl::Duration in_phase = now - connection->since;
    const bool overdue =
        (connection->phase == Connection::Phase::kHead && in_phase > limits.header_timeout) ||
        (connection->phase == Connection::Phase::kBody && in_phase > limits.body_timeout);
    if (overdue && !connection->cut) {
      // libmicrohttpd reads the end of the stream and closes the connection
      // on this thread, so the descriptor cannot be reused in between.
      shutdown(connection->fd, SHUT_RDWR);
      connection->cut = true;
      continue;
    }
    if (connection->exchange == nullptr) continue;
    std::shared_ptr<internal::StreamBody> stream = connection->exchange->stream();
    if (stream == nullptr) continue;
    // A parked stream is not watched by libmicrohttpd: look for a client
    // that closed it, and write to quiet ones to find those that vanished.
    if (stream->waiting() && PeerClosed(connection->fd)) {
      stream->Cut();
      continue;
    }
    stream->HeartbeatIfQuiet(now, limits.stream_heartbeat, options_.stream_heartbeat_chunk);
  }
}

void HttpServer::Loop::Teardown() {
  for (auto& [handle, connection] : connections_) {
    if (connection->exchange != nullptr) connection->exchange->Abort();
  }
  // Let libmicrohttpd send the 503s and end the cut streams: stopping it
  // with a connection still suspended is not allowed.
  for (int round = 0; round < 20; ++round) {
    MHD_run(daemon_);
    epoll_event events[4];
    epoll_wait(epoll_fd_, events, 4, 5);
  }
  MHD_stop_daemon(daemon_);
  daemon_ = nullptr;
}

HttpServer::Loop::Connection* HttpServer::Loop::ConnectionOf(MHD_Connection* connection) {
  auto found = connections_.find(connection);
  return found == connections_.end() ? nullptr : found->second;
}

void HttpServer::Loop::ConnectionChanged(MHD_Connection* connection, void** socket_context,
                                         MHD_ConnectionNotificationCode what) {
  if (what == MHD_CONNECTION_NOTIFY_STARTED) {
    auto* state = new Connection;
    const MHD_ConnectionInfo* info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    state->fd = info == nullptr ? -1 : info->connect_fd;
    state->since = absl::Now();
    *socket_context = state;
    connections_[connection] = state;
    open_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  delete static_cast<Connection*>(*socket_context);
  *socket_context = nullptr;
  if (connections_.erase(connection) > 0) open_.fetch_sub(1, std::memory_order_relaxed);
}

const HttpRoute* HttpServer::Loop::Match(const HttpRequest& head, HttpResponse& refusal) const {
  std::vector<std::string> allowed;
  for (const HttpRoute& route : options_.routes) {
    const bool path_matches =
        route.prefix ? head.path.rfind(route.path, 0) == 0 : head.path == route.path;
    if (!path_matches) continue;
    if (route.method == head.method) return &route;
    allowed.push_back(route.method);
  }
  if (!allowed.empty()) {
    refusal = HttpResponse::Text(
        405, absl::StrCat("This path answers ", absl::StrJoin(allowed, ", "), " only.\n"));
    refusal.headers.emplace_back("Allow", absl::StrJoin(allowed, ", "));
  } else if (options_.not_found) {
    refusal = options_.not_found(head);
  } else {
    refusal = HttpResponse::Text(404, "Not found.\n");
  }
  return nullptr;
}

bool HttpServer::Loop::Refuse(MHD_Connection* connection, Exchange& exchange,
                              const HttpResponse& response) {
  exchange.refused = true;
  return QueueResponse(connection, response, headers_);
}

MHD_Result HttpServer::Loop::Begin(MHD_Connection* connection, const char* url, const char* method,
                                   void** request_context) {
  auto exchange = std::make_shared<Exchange>(connection, &waker_);
  *request_context = new std::shared_ptr<Exchange>(exchange);
  Connection* state = ConnectionOf(connection);
  if (state != nullptr) {
    state->phase = Connection::Phase::kBody;
    state->since = absl::Now();
    state->exchange = exchange;
  }
  HttpRequest& head = exchange->request;
  head.method = method;
  head.path = url;
  head.peer = PeerOf(connection);
  head.tls = !options_.tls_cert_file.empty();
  MHD_get_connection_values(connection, MHD_HEADER_KIND, &CollectHeader, &head.headers);

  HttpResponse refusal;
  const HttpRoute* route = Match(head, refusal);
  if (route == nullptr) return Refuse(connection, *exchange, refusal) ? MHD_YES : MHD_NO;
  if (route->admit) {
    if (std::optional<HttpResponse> early = route->admit(head); early.has_value()) {
      return Refuse(connection, *exchange, *early) ? MHD_YES : MHD_NO;
    }
  }
  // A declared length over the limit is refused before a byte of it is
  // read (libmicrohttpd then closes the connection rather than read on).
  int64_t declared = 0;
  const absl::string_view length = head.header("content-length");
  const bool chunked =
      absl::StrContains(absl::AsciiStrToLower(head.header("transfer-encoding")), "chunked");
  if ((!length.empty() && absl::SimpleAtoi(length, &declared) &&
       declared > route->max_body_bytes) ||
      (route->max_body_bytes == 0 && chunked)) {
    HttpResponse too_large =
        route->too_large
            ? route->too_large(route->max_body_bytes)
            : HttpResponse::Text(
                  413, absl::StrCat("The request body is larger than the ", route->max_body_bytes,
                                    " bytes this path accepts.\n"));
    too_large.status = 413;
    return Refuse(connection, *exchange, too_large) ? MHD_YES : MHD_NO;
  }
  exchange->route = route;
  return MHD_YES;
}

MHD_Result HttpServer::Loop::Access(MHD_Connection* connection, const char* url, const char* method,
                                    const char* upload_data, size_t* upload_data_size,
                                    void** request_context) {
  if (*request_context == nullptr) return Begin(connection, url, method, request_context);
  Exchange& exchange = **static_cast<std::shared_ptr<Exchange>*>(*request_context);
  if (exchange.refused) {
    *upload_data_size = 0;  // an answer is queued: what still comes is dropped
    return MHD_YES;
  }
  if (*upload_data_size > 0) {
    const size_t size = *upload_data_size;
    *upload_data_size = 0;
    if (exchange.request.body.size() + size > static_cast<size_t>(exchange.route->max_body_bytes)) {
      // A body without a declared length (chunked) ran past the limit. The
      // answer cannot be sent in the middle of a body, so the connection
      // is closed: nothing more of it is read or kept.
      exchange.request.body.clear();
      exchange.request.body.shrink_to_fit();
      return MHD_NO;
    }
    exchange.request.body.append(upload_data, size);
    return MHD_YES;
  }
  // The whole request is in (or it was resumed because its answer is).
  if (!exchange.dispatched) {
    exchange.dispatched = true;
    if (Connection* state = ConnectionOf(connection); state != nullptr) {
      state->phase = Connection::Phase::kAnswer;
      state->since = absl::Now();
    }
    exchange.route->handle(std::move(exchange.request),
                           *static_cast<std::shared_ptr<Exchange>*>(*request_context));
  }
  return exchange.Advance(headers_) == Progress::kFailed ? MHD_NO : MHD_YES;
}

void HttpServer::Loop::Completed(MHD_Connection* connection, void** request_context) {
  auto* holder = static_cast<std::shared_ptr<Exchange>*>(*request_context);
  if (holder != nullptr) {
    (*holder)->End();
    delete holder;
    *request_context = nullptr;
  }
  if (Connection* state = ConnectionOf(connection); state != nullptr) {
    state->exchange.reset();
    state->phase = Connection::Phase::kHead;
    state->since = absl::Now();
  }
}

// --- HttpServer ---

HttpServer::HttpServer(std::unique_ptr<Loop> loop, int port) : loop_(std::move(loop)), port_(port) {
  thread_ = std::thread([loop = loop_.get()] { loop->Run(); });
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(HttpServerOptions options) {
  if (options.tls_cert_file.empty() != options.tls_key_file.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the ", options.name, " port's TLS needs both a certificate and a key"));
  }
  const HttpLimits& limits = options.limits;
  if (limits.max_connections < 1 || limits.max_connections_per_address < 1 ||
      limits.max_header_bytes < 4096 || limits.header_timeout <= absl::ZeroDuration() ||
      limits.body_timeout <= absl::ZeroDuration() || limits.idle_timeout <= absl::ZeroDuration() ||
      limits.stream_heartbeat <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the ", options.name,
        " port's limits must be positive (connections, timeouts) and allow a 4 KiB head"));
  }
  absl::StatusOr<ListenSocket> socket = Listen(options.host, options.port);
  if (!socket.ok()) return socket.status();
  const int port = socket->port;
  auto loop = std::make_unique<Loop>(std::move(options));
  if (absl::Status started = loop->Start(*std::move(socket)); !started.ok()) return started;
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(loop), port));
}

HttpServer::~HttpServer() { Shutdown(); }

int HttpServer::connections() const { return loop_->connections(); }

void HttpServer::Shutdown() {
  if (!thread_.joinable()) return;
  loop_->Stop();
  thread_.join();
}

}  // namespace taskboard::http
