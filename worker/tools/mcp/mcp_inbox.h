#ifndef TASKBOARD_WORKER_TOOLS_MCP_MCP_INBOX_H_
#define TASKBOARD_WORKER_TOOLS_MCP_MCP_INBOX_H_

// What an MCP connection receives, whatever carries it (a stdio server's
// stdout lines, the JSON bodies and server-sent events of a Streamable HTTP
// server): the requests waiting for answers, matched by JSON-RPC id, and
// what is done with every other message (docs/mcp.md#limits-and-errors).
//
// Whatever the server sends that is not a well-formed message, an answer to
// an id nobody waits for, or a notification nobody asked for is dropped and
// counted, so a confused or hostile server fails only the requests it does
// not answer. A message longer than the limit fails the request it answers,
// found by the id at either end of it. The server's own requests are
// answered through `reply`: `ping` with an empty result, anything else with
// -32601 (the worker declares no client capabilities). Once the connection
// has ended, every waiting request fails with how it ended.
//
// Thread-safe.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "common/mcp/json_rpc.h"
#include "worker/base/cancel_token.h"

namespace taskboard::worker {

// What every MCP connection is told, whatever its transport.
struct McpPeerOptions {
  // The server's name, for errors ("MCP server 'github' ...").
  std::string server_name;
  // Longest message accepted from the server.
  size_t max_message_bytes = (4 << 20) + (64 << 10);
  // Called for each notification from the server, on the thread that
  // received it; must return quickly.
  std::function<void(const mcp::JsonRpcMessage&)> on_notification;
};

class McpInbox {
 public:
  // `reply` sends one message (JSON text) to the server: the answers to its
  // requests. Called on the thread that received the request.
  McpInbox(McpPeerOptions options, std::function<void(const std::string&)> reply);

  const McpPeerOptions& options() const { return options_; }

  // "MCP server 'NAME', LABEL: " for errors.
  std::string Prefix(absl::string_view label) const;

  // Registers a request named `label` in errors; its id. UNAVAILABLE (how
  // the connection ended) once it has.
  absl::StatusOr<int64_t> Open(std::string label);

  // Waits for the answer to `id` until `deadline` or until `cancel`
  // (optional) fires, then forgets `id`. The answer, or: DEADLINE_EXCEEDED,
  // CANCELLED (with *why_stopped set to what the server is to be told), the
  // error the answer carried (UNAVAILABLE when the connection ended,
  // RESOURCE_EXHAUSTED when it was too long, INVALID_ARGUMENT /
  // UNIMPLEMENTED / UNKNOWN for a JSON-RPC error answer).
  absl::StatusOr<Json> Await(int64_t id, absl::Time deadline, const CancelToken* cancel,
                             std::string* why_stopped);

  // Forgets `id`; its answer if one came.
  std::optional<absl::StatusOr<Json>> Close(int64_t id);

  // Whether `id` has its answer.
  bool Answered(int64_t id) const;

  // The error of a request given up on: CANCELLED when `cancel` fired,
  // else DEADLINE_EXCEEDED; *why_stopped says which, for
  // notifications/cancelled.
  absl::Status GaveUp(absl::string_view label, const CancelToken* cancel,
                      std::string* why_stopped) const;

  // One message as received (any surrounding whitespace is ignored).
  void OnMessage(absl::string_view text);
  // A message over max_message_bytes, of which only the first and last few
  // hundred bytes were kept.
  void OnOversized(absl::string_view head, absl::string_view tail);
  // How many bytes of each end OnOversized needs.
  static constexpr size_t kOversizedKeep = 256;

  // The connection ended `how` ("exited with code 3", ...): later requests
  // are refused, and with `fail_waiting` every waiting request fails with
  // UNAVAILABLE saying so, followed by `hint`. A transport whose requests
  // end on their own (each HTTP exchange does) passes false, so an answer
  // still on its way is not lost.
  void End(std::string how, absl::string_view hint, bool fail_waiting = true);

  bool ended() const;
  // How the connection ended; empty while it runs.
  std::string ending() const;
  // Messages dropped so far.
  int64_t dropped() const;

 private:
  struct Pending {
    std::string label;
    bool done = false;
    absl::StatusOr<Json> answer = Json();
  };

  void Drop(absl::string_view why);
  void OnServerRequest(const mcp::JsonRpcMessage& request);

  const McpPeerOptions options_;
  const std::function<void(const std::string&)> reply_;

  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  absl::flat_hash_map<int64_t, std::shared_ptr<Pending>> pending_ ABSL_GUARDED_BY(mu_);
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  std::string ending_ ABSL_GUARDED_BY(mu_);
  int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace taskboard::worker

#endif  // TASKBOARD_WORKER_TOOLS_MCP_MCP_INBOX_H_
