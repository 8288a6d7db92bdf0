#ifndef TASKBOARD_TOOLS_FAKE_LLM_FAKE_LLM_SERVER_H_
#define TASKBOARD_TOOLS_FAKE_LLM_FAKE_LLM_SERVER_H_

// The fake LLM's HTTP binding (cpp-httplib): `POST /v1/chat/completions` and
// `POST /chat/completions` answered by a ChatHandler, `GET /requests` (the
// request log as a JSON array), `GET /stats` (ChatHandler::Stats) and
// `GET /healthz`. Serves on its own threads from Start until Shutdown (or
// destruction).

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "tools/fake-llm/chat_handler.h"
#include "tools/fake-llm/rate_limits.h"
#include "tools/fake-llm/request_log.h"
#include "tools/fake-llm/script.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace taskboard::fake_llm {

struct FakeLlmServerOptions {
  std::string host = "127.0.0.1";
  // 0: any free port (read it back with port()).
  int port = 0;
  // Request log file (JSON lines, appended); empty: memory only.
  std::string log_path;
  // --rpm / --tpm; 0: unlimited.
  RateLimitOptions limits;
};

class FakeLlmServer {
 public:
  // UNAVAILABLE when the address cannot be bound; INVALID_ARGUMENT when the
  // log file cannot be opened.
  static absl::StatusOr<std::unique_ptr<FakeLlmServer>> Start(Script script,
                                                              const FakeLlmServerOptions& options);
  ~FakeLlmServer();

  int port() const { return port_; }

  // Stops accepting, cuts scripted delays short and waits for the serving
  // thread. Idempotent.
  void Shutdown();

 private:
  FakeLlmServer() = default;
  void Route();

  std::unique_ptr<RequestLog> log_;
  std::unique_ptr<ChatHandler> handler_;
  std::unique_ptr<httplib::Server> http_;
  absl::Notification stopping_;
  std::thread serving_;
  int port_ = 0;
};

}  // namespace taskboard::fake_llm

#endif  // TASKBOARD_TOOLS_FAKE_LLM_FAKE_LLM_SERVER_H_
