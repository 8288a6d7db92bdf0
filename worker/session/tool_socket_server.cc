#include "worker/session/tool_socket_server.h"

#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "common/json.h"

namespace taskboard::worker {
namespace {

constexpr char kSocketName[] = "tools.sock";
// taskboard-worker.<pid>.XXXXXX: the pid lets a later worker tell the
// directory of a dead one (killed before it could clean up) from a live one.
constexpr char kDirPrefix[] = "taskboard-worker.";

std::string ErrorResponse(absl::string_view message) {
  return DumpJson({{"ok", false}, {"error", message}});
}

std::string NewToken() {
  absl::BitGen random;
  return absl::StrFormat("%016x%016x", absl::Uniform<uint64_t>(random),
                         absl::Uniform<uint64_t>(random));
}

// Where the private directory goes: the requested parent, else $TMPDIR, else
// /tmp, whichever leaves the socket path short enough.
std::filesystem::path ParentDir(const std::filesystem::path& requested) {
  std::filesystem::path parent = requested;
  if (parent.empty()) {
    const char* tmpdir = getenv("TMPDIR");
    parent = tmpdir != nullptr && tmpdir[0] != '\0' ? tmpdir : "/tmp";
  }
  const size_t length =
      (parent / absl::StrCat(kDirPrefix, getpid(), ".XXXXXX") / kSocketName).string().size();
  return length <= kMaxUnixSocketPath ? parent : std::filesystem::path("/tmp");
}

// Removes the socket directories of this user's workers that died without
// cleaning up (SIGKILL, OOM), so they do not pile up in $TMPDIR.
void RemoveStaleDirs(const std::filesystem::path& parent) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(parent, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!absl::StartsWith(name, kDirPrefix)) continue;
    const std::vector<absl::string_view> parts = absl::StrSplit(name, '.');
    int pid = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[1], &pid) || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    struct stat info;
    if (lstat(it->path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != geteuid()) {
      continue;
    }
    std::error_code ignored;
    std::filesystem::remove_all(it->path(), ignored);
  }
}

}  // namespace

struct ToolSocketServer::GrantState {
  ToolTask task;
  CancelToken cancel;
  // Calls in flight (guarded by the server's mu_).
  int active = 0;
  bool Idle() const { return active == 0; }
};

absl::StatusOr<std::unique_ptr<ToolSocketServer>> ToolSocketServer::Start(
    ToolCaller& caller, ToolSocketOptions options) {
  const std::filesystem::path parent = ParentDir(options.parent_dir);
  RemoveStaleDirs(parent);
  std::string pattern = (parent / absl::StrCat(kDirPrefix, getpid(), ".XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create the tool socket directory ", pattern,
                                            ": ", std::strerror(errno),
                                            " (set TMPDIR to a writable directory)"));
  }
  const std::filesystem::path dir = pattern;
  absl::StatusOr<UniqueFd> listener = ListenUnixSocket((dir / kSocketName).string());
  UniqueFd wake(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!listener.ok() || !wake.valid()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    if (!listener.ok()) return listener.status();
    return absl::InternalError(absl::StrCat("cannot create an eventfd: ", std::strerror(errno)));
  }
  return std::unique_ptr<ToolSocketServer>(
      new ToolSocketServer(caller, std::move(options), dir, *std::move(listener), std::move(wake)));
}

ToolSocketServer::ToolSocketServer(ToolCaller& caller, ToolSocketOptions options,
                                   std::filesystem::path dir, UniqueFd listener, UniqueFd wake)
    : caller_(caller),
      options_(std::move(options)),
      dir_(std::move(dir)),
      path_((dir_ / kSocketName).string()),
      listener_(std::move(listener)),
      wake_(std::move(wake)) {
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

ToolSocketServer::~ToolSocketServer() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  const uint64_t one = 1;
  (void)!write(wake_.get(), &one, sizeof(one));
  accept_thread_.join();
  // The accept thread no longer erases connections, so the list nodes stay
  // put while their threads finish (each marks its node under mu_).
  std::vector<std::thread*> threads;
  {
    absl::MutexLock lock(&mu_);
    // Wakes connections blocked reading a request; the fd stays open until
    // its thread is done with it.
    for (Connection& connection : connections_) {
      if (connection.fd >= 0) shutdown(connection.fd, SHUT_RDWR);
      threads.push_back(&connection.thread);
    }
  }
  for (std::thread* thread : threads) thread->join();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string ToolSocketServer::Grant(ToolTask task) {
  auto grant = std::make_shared<GrantState>();
  grant->task = std::move(task);
  grant->task.cancel = &grant->cancel;
  std::string token = NewToken();
  absl::MutexLock lock(&mu_);
  grants_.emplace(token, std::move(grant));
  return token;
}

void ToolSocketServer::Revoke(const std::string& token) {
  absl::MutexLock lock(&mu_);
  auto it = grants_.find(token);
  if (it == grants_.end()) return;
  std::shared_ptr<GrantState> grant = std::move(it->second);
  grants_.erase(it);
  grant->cancel.Cancel("the task that made this tool call has ended");
  mu_.Await(absl::Condition(grant.get(), &GrantState::Idle));
}

std::string ToolSocketServer::Handle(absl::string_view request_line) {
  absl::StatusOr<Json> request = ParseJson(request_line);
  if (!request.ok() || !request->is_object()) {
    return ErrorResponse(
        absl::StrCat("the request is not a JSON object {\"token\", \"tool\", \"args\"}",
                     request.ok() ? "" : absl::StrCat(": ", request.status().message())));
  }
  auto string_field = [&request](const char* name) -> std::string {
    auto it = request->find(name);
    return it != request->end() && it->is_string() ? it->get<std::string>() : "";
  };
  const std::string token = string_field("token");
  const std::string tool = string_field("tool");
  if (tool.empty()) return ErrorResponse("the request has no \"tool\" (a tool name string)");
  Json args = Json::object();
  if (auto it = request->find("args"); it != request->end() && !it->is_null()) {
    if (!it->is_object()) {
      return ErrorResponse(
          absl::StrCat("the arguments must be a JSON object, got ", DumpJson(*it)));
    }
    args = *it;
  }

  std::shared_ptr<GrantState> grant;
  {
    absl::MutexLock lock(&mu_);
    auto it = grants_.find(token);
    if (it == grants_.end()) {
      return ErrorResponse(
          "the task token is not valid: tool calls work only while the task that was given the "
          "token (TASKBOARD_TASK_TOKEN) is running on this worker");
    }
    grant = it->second;
    ++grant->active;
  }
  absl::StatusOr<ToolCallResult> result = caller_.Call(grant->task, tool, DumpJson(args));
  {
    absl::MutexLock lock(&mu_);
    --grant->active;
  }
  if (!result.ok()) return ErrorResponse(result.status().message());

  absl::StatusOr<Json> value = ParseJson(result->result_json);
  Json source = nullptr;
  if (result->cached) {
    source = {{"run_id", result->source_task.run_id()}, {"task_id", result->source_task.task_id()}};
  }
  return DumpJson({{"ok", true},
                   {"result", value.ok() ? *std::move(value) : Json(result->result_json)},
                   {"cached", result->cached},
                   {"cache_age_ms", result->cache_age_ms},
                   {"source_task", std::move(source)}});
}

void ToolSocketServer::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{listener_.get(), POLLIN, 0}, {wake_.get(), POLLIN, 0}};
    // The timeout lets finished connection threads be joined while idle.
    poll(fds, 2, 1000);
    JoinFinishedConnections();
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    UniqueFd fd(accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (!fd.valid()) continue;
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    if (open_connections_ >= options_.max_connections) {
      // The client would wait for an answer that never comes: say why.
      (void)WriteAll(fd.get(), ErrorResponse(absl::StrCat("the worker is already serving ",
                                                          options_.max_connections,
                                                          " tool connections; try again")) +
                                   "\n");
      continue;
    }
    ++open_connections_;
    connections_.emplace_back();
    Connection* connection = &connections_.back();
    connection->fd = fd.get();
    connection->thread = std::thread(
        [this, connection, owned = std::make_shared<UniqueFd>(std::move(fd))]() mutable {
          Serve(connection, std::move(*owned));
        });
  }
}

void ToolSocketServer::Serve(Connection* connection, UniqueFd fd) {
  LineReader reader(fd.get(), options_.max_request_bytes);
  while (true) {
    absl::StatusOr<std::optional<std::string>> line = reader.Next(options_.request_timeout);
    if (!line.ok()) {
      if (line.status().code() == absl::StatusCode::kResourceExhausted) {
        (void)WriteAll(fd.get(), ErrorResponse(absl::StrCat("the request is too long: ",
                                                            line.status().message())) +
                                     "\n");
      }
      break;
    }
    if (!line->has_value()) break;
    if (!WriteAll(fd.get(), Handle(**line) + "\n").ok()) break;
  }
  absl::MutexLock lock(&mu_);
  connection->fd = -1;
  --open_connections_;
}

void ToolSocketServer::JoinFinishedConnections() {
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = connections_.begin(); it != connections_.end();) {
      if (it->fd < 0) {
        finished.push_back(std::move(it->thread));
        it = connections_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (std::thread& thread : finished) thread.join();
}

}  // namespace taskboard::worker
