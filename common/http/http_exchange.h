#ifndef TASKBOARD_COMMON_HTTP_HTTP_EXCHANGE_H_
#define TASKBOARD_COMMON_HTTP_HTTP_EXCHANGE_H_

// Inside the front door (http_server.cc): one request's answer, shared by the
// server's thread and whichever thread answers it. The connection is
// suspended while its answer is being worked on or while its stream has
// nothing to send, and resumed by whoever provides the next thing to send,
// so no thread ever waits on a client.
//
// Locking: each object's mutex guards its fields; MHD is only called with
// MHD_resume_connection from other threads, which libmicrohttpd allows for a
// daemon with inter-thread signalling. `connection` becomes null, under the
// lock, when libmicrohttpd ends the request, and nothing touches it after.

#include <sys/types.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/http/http_message.h"
#include "common/http/http_responder.h"

struct MHD_Connection;

namespace taskboard::http {
struct HttpRoute;
}  // namespace taskboard::http

namespace taskboard::http::internal {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// Wakes the server's loop after a connection was resumed from another
// thread: libmicrohttpd's own signal does not reach a loop that drives it
// from outside. Owned by the loop; used only while a connection is open,
// which the loop outlives.
struct Waker {
  int fd = -1;
  void Wake() const;
};

class StreamBody final : public HttpStream {
 public:
  StreamBody(MHD_Connection* connection, const Waker* waker)
      : waker_(waker), connection_(connection) {}

  bool Write(std::string chunk) override;
  size_t Buffered() const override;
  void Close() override;
  void SetCallbacks(std::function<void()> drained, std::function<void()> done) override;

  // The server's thread. libmicrohttpd's content reader: copies up to `max`
  // queued bytes into `buf`; with none queued it suspends the connection and
  // returns 0 (a Write resumes it), or ends the body after Close (-1) or
  // when the client has gone (-2).
  ssize_t Read(char* buf, size_t max);
  // The request has ended: writes fail from now on and `done` runs.
  void End();
  // Marks the client gone and wakes the connection so that libmicrohttpd
  // ends the answer (the client closed its end, or the server is stopping).
  void Cut();
  // Writes `chunk` when nothing was written for `quiet`.
  void HeartbeatIfQuiet(absl::Time now, absl::Duration quiet, const std::string& chunk);
  // Whether the connection waits for a Write (and so is not watched by
  // libmicrohttpd, which would otherwise notice a closed client itself).
  bool waiting() const;

 private:
  void ResumeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Waker* const waker_;
  mutable absl::Mutex mu_;
  MHD_Connection* connection_ ABSL_GUARDED_BY(mu_);
  std::deque<std::string> chunks_ ABSL_GUARDED_BY(mu_);
  size_t first_offset_ ABSL_GUARDED_BY(mu_) = 0;  // sent of chunks_.front()
  size_t buffered_ ABSL_GUARDED_BY(mu_) = 0;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  bool gone_ ABSL_GUARDED_BY(mu_) = false;
  bool suspended_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time last_write_ ABSL_GUARDED_BY(mu_) = absl::Now();
  std::function<void()> drained_ ABSL_GUARDED_BY(mu_);
  std::function<void()> done_ ABSL_GUARDED_BY(mu_);
};

// What Exchange::Advance did, for the access handler.
enum class Progress { kQueued, kWaiting, kFailed };

class Exchange final : public HttpResponder {
 public:
  Exchange(MHD_Connection* connection, const Waker* waker)
      : waker_(waker), connection_(connection) {}

  void Respond(HttpResponse response) override;
  std::shared_ptr<HttpStream> Stream(HttpResponse head) override;

  // The server's thread, from the access handler once the body is in (and
  // again after each resume): queues the answer when there is one, else
  // suspends the connection until Respond or Stream provides it.
  Progress Advance(const HeaderList& headers);
  // The request has ended (libmicrohttpd's completion callback): answers
  // given from now on are dropped; a stream's `done` runs.
  void End();
  // The server is stopping: a request still waiting for its answer gets
  // 503, a stream is cut.
  void Abort();
  // The streamed answer's body, once there is one.
  std::shared_ptr<StreamBody> stream() const;

  // Filled and read on the server's thread only.
  HttpRequest request;
  const HttpRoute* route = nullptr;
  bool refused = false;     // an answer was queued before the body was read
  bool dispatched = false;  // handed to the route

 private:
  void ProvideLocked(HttpResponse response, std::shared_ptr<StreamBody> stream)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Waker* const waker_;
  mutable absl::Mutex mu_;
  MHD_Connection* connection_ ABSL_GUARDED_BY(mu_);
  bool answered_ ABSL_GUARDED_BY(mu_) = false;
  bool suspended_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<HttpResponse> pending_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<StreamBody> stream_ ABSL_GUARDED_BY(mu_);
};

// Queues `response` (plus `headers`) on `connection`; false when
// libmicrohttpd refused it. The server's thread only.
bool QueueResponse(MHD_Connection* connection, const HttpResponse& response,
                   const HeaderList& headers);

}  // namespace taskboard::http::internal

#endif  // TASKBOARD_COMMON_HTTP_HTTP_EXCHANGE_H_
