#ifndef TASKBOARD_TESTS_UNIT_WORKER_AGENTS_SCRIPTED_LLM_SERVER_H_
#define TASKBOARD_TESTS_UNIT_WORKER_AGENTS_SCRIPTED_LLM_SERVER_H_

// A real HTTP server in the test process (cpp-httplib, 127.0.0.1, port 0)
// answering POST /v1/chat/completions with scripted replies, in order; the
// last reply repeats once the script runs out. It records each request body
// so tests can assert what the client sent. A reply may hold its answer
// until the test ends (timeouts, cancellation).

#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/json.h"
#include "httplib.h"

namespace taskboard::worker::testing {

struct ScriptedReply {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
  // Sent as server-sent events (`data: <chunk>` each, then [DONE]) when set.
  std::vector<std::string> sse_chunks;
  // Never answer (until the server is destroyed).
  bool hang = false;
};

// A chat completion whose message says `content`.
inline ScriptedReply TextReply(const std::string& content, int prompt_tokens = 10,
                               int completion_tokens = 5) {
  Json body = {
      {"id", "c1"},
      {"model", "test-model"},
      {"choices",
       {{{"index", 0},
         {"message", {{"role", "assistant"}, {"content", content}}},
         {"finish_reason", "stop"}}}},
      {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens}}}};
  return {.body = DumpJson(body)};
}

// TextReply with OpenAI's detail of the prompt tokens served from its cache.
inline ScriptedReply CachedTextReply(const std::string& content, int prompt_tokens,
                                     int completion_tokens, int cached_tokens) {
  ScriptedReply reply = TextReply(content, prompt_tokens, completion_tokens);
  Json body = Json::parse(reply.body);
  body["usage"]["prompt_tokens_details"] = {{"cached_tokens", cached_tokens}};
  reply.body = DumpJson(body);
  return reply;
}

// A chat completion calling tool `name` with `arguments` (JSON text).
inline ScriptedReply ToolCallReply(const std::string& id, const std::string& name,
                                   const std::string& arguments, int prompt_tokens = 10,
                                   int completion_tokens = 5) {
  Json call = {
      {"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", arguments}}}};
  Json body = {
      {"model", "test-model"},
      {"choices",
       {{{"index", 0},
         {"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", {call}}}},
         {"finish_reason", "tool_calls"}}}},
      {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens}}}};
  return {.body = DumpJson(body)};
}

inline ScriptedReply ErrorReply(int status, const std::string& message) {
  return {.status = status, .body = DumpJson(Json{{"error", {{"message", message}}}})};
}

class ScriptedLlmServer {
 public:
  explicit ScriptedLlmServer(std::vector<ScriptedReply> script) : script_(std::move(script)) {
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& request, httplib::Response& response) {
                   Answer(request, response);
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() before the accept loop runs is lost (httplib 0.11 has no
    // wait_until_ready): wait for it to be running.
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (!server_.is_running() && absl::Now() < deadline) std::this_thread::yield();
  }

  ~ScriptedLlmServer() {
    release_.Notify();
    server_.stop();
    thread_.join();
  }

  int port() const { return port_; }
  std::string base_url() const { return absl::StrCat("http://127.0.0.1:", port_, "/v1"); }

  // The bodies received so far, parsed.
  std::vector<Json> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  std::vector<std::string> authorizations() const {
    absl::MutexLock lock(&mu_);
    return authorizations_;
  }

  // Whether `count` requests arrived within `timeout`.
  bool WaitForRequests(size_t count, absl::Duration timeout) const {
    struct Wait {
      const ScriptedLlmServer* self;
      size_t count;
      bool Done() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->requests_.size() >= count; }
    } wait{this, count};
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&wait, &Wait::Done), timeout);
  }

 private:
  void Answer(const httplib::Request& request, httplib::Response& response) {
    ScriptedReply reply;
    {
      absl::MutexLock lock(&mu_);
      absl::StatusOr<Json> body = ParseJson(request.body);
      requests_.push_back(body.ok() ? *body : Json(request.body));
      authorizations_.push_back(request.get_header_value("Authorization"));
      reply = script_[std::min(next_, script_.size() - 1)];
      ++next_;
    }
    if (reply.hang) {
      release_.WaitForNotificationWithTimeout(absl::Seconds(30));
      return;
    }
    response.status = reply.status;
    for (const auto& [name, value] : reply.headers) response.set_header(name, value);
    if (reply.sse_chunks.empty()) {
      response.set_content(reply.body, reply.content_type.c_str());
      return;
    }
    // Chunked, one event per write, so the client sees them arrive apart.
    auto shared = std::make_shared<std::vector<std::string>>(reply.sse_chunks);
    response.set_chunked_content_provider(
        "text/event-stream", [shared](size_t, httplib::DataSink& sink) {
          for (const std::string& chunk : *shared) {
            const std::string event = absl::StrCat("data: ", chunk, "\n\n");
            sink.write(event.data(), event.size());
          }
          const std::string done = "data: [DONE]\n\n";
          sink.write(done.data(), done.size());
          sink.done();
          return true;
        });
  }

  const std::vector<ScriptedReply> script_;
  httplib::Server server_;
  int port_ = -1;
  std::thread thread_;
  absl::Notification release_;
  mutable absl::Mutex mu_;
  size_t next_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<Json> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> authorizations_ ABSL_GUARDED_BY(mu_);
};

}  // namespace taskboard::worker::testing

#endif  // TASKBOARD_TESTS_UNIT_WORKER_AGENTS_SCRIPTED_LLM_SERVER_H_
