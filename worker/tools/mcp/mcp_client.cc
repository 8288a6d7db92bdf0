#include "worker/tools/mcp/mcp_client.h"

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "worker/base/child_environment.h"
#include "worker/tools/mcp/mcp_http_connection.h"
#include "worker/tools/mcp/mcp_stdio_connection.h"

namespace taskboard::worker {
namespace {

constexpr const char* kAcceptedVersions[] = {"2025-06-18", "2025-11-25", "2025-03-26",
                                             "2024-11-05"};
constexpr absl::Duration kRestartCancelPoll = absl::Milliseconds(50);

absl::Status WithCode(absl::StatusCode code, const std::string& message) {
  return absl::Status(code, message);
}

}  // namespace

McpClient::McpClient(McpServerDefinition definition, McpClientOptions options)
    : definition_(std::move(definition)),
      options_(std::move(options)),
      backoff_(options_.restart_backoff) {}

McpClient::~McpClient() { Stop(); }

void McpClient::Stop() {
  {
    absl::MutexLock lock(&watch_mu_);
    if (stopping_ && !watcher_.joinable()) return;
    stopping_ = true;
  }
  std::shared_ptr<McpConnection> connection;
  {
    // A listing in progress holds start_mu_ only while starting; killing
    // the process ends whatever it waits for.
    absl::MutexLock lock(&start_mu_);
    connection = connection_;
  }
  if (connection != nullptr) connection->Kill();
  if (watcher_.joinable()) watcher_.join();
  absl::MutexLock lock(&start_mu_);
  connection_.reset();
}

absl::StatusOr<std::shared_ptr<McpConnection>> McpClient::Connected(absl::Time deadline,
                                                                    const CancelToken* cancel) {
  const std::string who = absl::StrCat("MCP server '", definition_.name, "'");
  while (true) {
    {
      absl::MutexLock watch(&watch_mu_);
      if (stopping_) return absl::UnavailableError(absl::StrCat(who, " is stopping"));
    }
    absl::Time wait_until;
    {
      absl::MutexLock lock(&start_mu_);
      if (connection_ != nullptr && connection_->alive()) return connection_;
      const absl::Time now = absl::Now();
      if (connection_ != nullptr) {
        last_failure_ = absl::StrCat("it ", connection_->ending());
        connection_.reset();
        absl::BitGen random;
        next_start_ = now + backoff_.Next(random);
      }
      if (now >= next_start_) return StartLocked(deadline);
      if (next_start_ > deadline) {
        return absl::UnavailableError(absl::StrCat(
            who, " is down (", last_failure_, "); the worker restarts it in ",
            absl::FormatDuration(absl::Ceil(next_start_ - now, absl::Milliseconds(1)))));
      }
      wait_until = next_start_;
    }
    while (absl::Now() < wait_until) {
      if (cancel != nullptr && cancel->cancelled()) {
        const std::string reason = cancel->reason();
        return absl::CancelledError(
            absl::StrCat("cancelled: ", reason.empty() ? "no reason given" : reason));
      }
      absl::SleepFor(std::min(kRestartCancelPoll, wait_until - absl::Now()));
    }
  }
}

absl::StatusOr<std::shared_ptr<McpConnection>> McpClient::Open(McpPeerOptions peer) const {
  if (definition_.url.empty()) {
    McpStdioOptions stdio;
    stdio.peer = std::move(peer);
    stdio.argv = definition_.argv;
    stdio.env = EnvironmentStrings(ChildEnvironment(definition_.pass_env));
    stdio.kill_grace = options_.kill_grace;
    stdio.reaper = options_.reaper;
    absl::StatusOr<std::unique_ptr<McpStdioConnection>> started =
        McpStdioConnection::Start(std::move(stdio));
    if (!started.ok()) return started.status();
    return std::shared_ptr<McpConnection>(*std::move(started));
  }
  McpHttpOptions http;
  http.peer = std::move(peer);
  http.url = definition_.url;
  // Read at each new session, so a rotated secret is picked up by the next
  // one; the values are never logged.
  for (const auto& [header, variable] : definition_.header_env) {
    const char* value = std::getenv(variable.c_str());
    if (value == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("MCP server '", definition_.name, "': header '", header,
                       "' takes its value from the environment variable ", variable,
                       ", which the worker does not have; set it, or remove the header from ",
                       definition_.source.string()));
    }
    const absl::string_view text(value);
    if (text.size() > kMaxCapturedHeaderBytes || text.find_first_of("\r\n") != text.npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("MCP server '", definition_.name, "': the environment variable ", variable,
                       " (header '", header, "') is longer than ", kMaxCapturedHeaderBytes,
                       " bytes or holds a line break; its value is not shown"));
    }
    http.headers.push_back(absl::StrCat(header, ": ", text));
  }
  return std::make_shared<McpHttpConnection>(std::move(http));
}

absl::StatusOr<std::shared_ptr<McpConnection>> McpClient::StartLocked(absl::Time deadline) {
  auto fail = [this](const absl::Status& status) {
    last_failure_ = std::string(status.message());
    absl::BitGen random;
    next_start_ = absl::Now() + backoff_.Next(random);
    return status;
  };
  McpPeerOptions peer;
  peer.server_name = definition_.name;
  // The envelope of a result: its JSON-RPC framing around max_result_bytes.
  peer.max_message_bytes = options_.max_result_bytes + (64 << 10);
  peer.on_notification = [this](const mcp::JsonRpcMessage& message) {
    if (message.method != "notifications/tools/list_changed") return;
    absl::MutexLock lock(&watch_mu_);
    relist_ = true;
  };
  absl::StatusOr<std::shared_ptr<McpConnection>> started = Open(std::move(peer));
  if (!started.ok()) return fail(started.status());
  std::shared_ptr<McpConnection> running = *std::move(started);

  const absl::Time start_deadline = std::min(deadline, absl::Now() + options_.start_timeout);
  const Json params = {{"protocolVersion", kMcpProtocolVersion},
                       {"capabilities", Json::object()},
                       {"clientInfo", {{"name", "taskboard-worker"}, {"version", "1"}}}};
  absl::StatusOr<Json> init = running->Request("initialize", params, start_deadline, nullptr,
                                               /*cancellable=*/false);
  if (!init.ok()) return fail(init.status());
  const Json* version = nullptr;
  if (init->is_object()) {
    if (auto it = init->find("protocolVersion"); it != init->end()) version = &*it;
  }
  if (version == nullptr || !version->is_string() ||
      std::find(std::begin(kAcceptedVersions), std::end(kAcceptedVersions),
                version->get<std::string>()) == std::end(kAcceptedVersions)) {
    return fail(absl::FailedPreconditionError(absl::StrCat(
        "MCP server '", definition_.name, "' answered initialize with protocol version ",
        version != nullptr ? DumpJson(*version) : std::string("(none)"), "; the worker speaks ",
        absl::StrJoin(kAcceptedVersions, ", "))));
  }
  if (absl::Status sent = running->Notify("notifications/initialized", Json()); !sent.ok()) {
    return fail(absl::UnavailableError(
        absl::StrCat("MCP server '", definition_.name, "', initialized: ", sent.message())));
  }
  backoff_.Reset();
  connection_ = running;
  return running;
}

absl::StatusOr<Json> McpClient::Send(absl::string_view method, const Json& params,
                                     absl::Time deadline, const CancelToken* cancel,
                                     absl::string_view label) {
  absl::Status lost;
  // Twice at most: a request the server refused for not knowing the
  // session was not handled, so it goes again on a new session.
  for (int attempt = 0; attempt < 2; ++attempt) {
    absl::StatusOr<std::shared_ptr<McpConnection>> connection = Connected(deadline, cancel);
    if (!connection.ok()) return connection.status();
    absl::StatusOr<Json> result =
        (*connection)->Request(method, params, deadline, cancel, /*cancellable=*/true, label);
    if (!IsMcpSessionLost(result.status())) return result;
    lost = result.status();
  }
  return lost;
}

absl::StatusOr<std::vector<McpToolInfo>> McpClient::ListTools() {
  const std::string who = absl::StrCat("MCP server '", definition_.name, "', tools/list: ");
  std::vector<McpToolInfo> tools;
  Json cursor;
  for (int page = 0; page < options_.max_list_pages; ++page) {
    Json params = Json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    absl::StatusOr<Json> listed =
        Send("tools/list", params, absl::Now() + options_.start_timeout, nullptr);
    if (!listed.ok()) return listed.status();
    if (!listed->is_object() || !listed->contains("tools") || !(*listed)["tools"].is_array()) {
      return absl::InvalidArgumentError(absl::StrCat(who, "the answer has no 'tools' array"));
    }
    for (Json& tool : (*listed)["tools"]) {
      if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) {
        return absl::InvalidArgumentError(
            absl::StrCat(who, "a tool without a string 'name': ", DumpJson(tool).substr(0, 200)));
      }
      if (static_cast<int>(tools.size()) >= options_.max_tools) {
        return absl::ResourceExhaustedError(
            absl::StrCat(who, "it lists more than ", options_.max_tools,
                         " tools, the limit; none of its tools are offered"));
      }
      McpToolInfo& info = tools.emplace_back();
      info.name = tool["name"].get<std::string>();
      if (tool.contains("description") && tool["description"].is_string()) {
        info.description = tool["description"].get<std::string>();
      }
      info.input_schema = tool.contains("inputSchema") && tool["inputSchema"].is_object()
                              ? std::move(tool["inputSchema"])
                              : Json{{"type", "object"}};
      if (tool.contains("annotations") && tool["annotations"].is_object()) {
        info.annotations = std::move(tool["annotations"]);
      }
    }
    auto next = listed->find("nextCursor");
    if (next == listed->end() || next->is_null()) return tools;
    if (!next->is_string()) {
      return absl::InvalidArgumentError(absl::StrCat(who, "'nextCursor' is not a string"));
    }
    cursor = *next;
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      who, "it lists more than ", options_.max_list_pages, " pages of tools, the limit"));
}

absl::StatusOr<Json> McpClient::CallTool(const std::string& name, const Json& arguments,
                                         const CancelToken* cancel, const Json* meta) {
  const absl::Time deadline = absl::Now() + definition_.call_timeout;
  const std::string label = absl::StrCat("tool '", name, "'");
  Json params = {{"name", name}, {"arguments", arguments}};
  if (meta != nullptr) params["_meta"] = *meta;
  absl::StatusOr<Json> result = Send("tools/call", params, deadline, cancel, label);
  if (absl::IsDeadlineExceeded(result.status())) {
    return absl::DeadlineExceededError(
        absl::StrCat("MCP server '", definition_.name, "', ", label, ": no answer within ",
                     absl::FormatDuration(definition_.call_timeout), " (timeout_seconds in ",
                     definition_.source.string(), "); the server was told to cancel the call"));
  }
  if (!result.ok()) return result.status();
  if (!result->is_object()) {
    return WithCode(
        absl::StatusCode::kUnknown,
        absl::StrCat("MCP server '", definition_.name, "', ", label,
                     ": the result is not an object: ", DumpJson(*result).substr(0, 200)));
  }
  return result;
}

void McpClient::Watch(std::function<void(std::vector<McpToolInfo>)> on_tools, bool list_now) {
  on_tools_ = std::move(on_tools);
  watcher_ = std::thread([this, list_now] {
    bool listed = !list_now;
    Backoff retry(options_.restart_backoff);
    absl::Time retry_at = absl::Now();
    while (true) {
      {
        absl::MutexLock lock(&watch_mu_);
        auto wake = [this]()
                        ABSL_EXCLUSIVE_LOCKS_REQUIRED(watch_mu_) { return stopping_ || relist_; };
        if (listed) {
          watch_mu_.Await(absl::Condition(&wake));
        } else {
          watch_mu_.AwaitWithDeadline(absl::Condition(&wake), retry_at);
        }
        if (stopping_) return;
        if (listed && !relist_) continue;
        relist_ = false;
      }
      absl::StatusOr<std::vector<McpToolInfo>> tools = ListTools();
      if (tools.ok()) {
        listed = true;
        retry.Reset();
        on_tools_(*std::move(tools));
        continue;
      }
      log::Warn("could not list an MCP server's tools")
          .With("server", definition_.name)
          .With("error", tools.status().message());
      if (!listed) {
        absl::BitGen random;
        retry_at = absl::Now() + retry.Next(random);
      }
    }
  });
}

}  // namespace taskboard::worker
