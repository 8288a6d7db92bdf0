#ifndef TASKBOARD_COMMON_HTTP_HTTP_RESPONDER_H_
#define TASKBOARD_COMMON_HTTP_HTTP_RESPONDER_H_

// How a route answers a request it was handed (http_server.h): now, from the
// server's thread, or later from any thread, once the work it handed off is
// done. The server's thread serves every connection, so a route never
// blocks it: slow work goes elsewhere and answers through the responder.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "common/http/http_message.h"

namespace taskboard::http {

// The body of one streamed answer (server-sent events). Thread-safe.
class HttpStream {
 public:
  virtual ~HttpStream() = default;

  // Queues `chunk` to be sent; false once the answer has ended (the client
  // left, the server is stopping, or Close was called), when nothing more
  // will be sent.
  virtual bool Write(std::string chunk) = 0;
  // Bytes queued and not yet taken by the socket: a producer stops reading
  // from its source above a high-water mark and goes on from `drained`.
  virtual size_t Buffered() const = 0;
  // Ends the body once what is queued has been sent.
  virtual void Close() = 0;
  // `drained` runs, on the server's thread, each time the queue empties;
  // `done` runs once when the answer has ended for any reason (sent in full,
  // client gone, server stopping). Set them before the first Write; they
  // must not block.
  virtual void SetCallbacks(std::function<void()> drained, std::function<void()> done) = 0;
};

// Answers one request exactly once. Thread-safe; calls after the first
// answer are ignored, and so are calls after the client has gone.
class HttpResponder {
 public:
  virtual ~HttpResponder() = default;

  virtual void Respond(HttpResponse response) = 0;
  // Answers with `head`'s status, content type and headers, and a body that
  // is written through the returned stream as it is produced.
  virtual std::shared_ptr<HttpStream> Stream(HttpResponse head) = 0;
};

}  // namespace taskboard::http

#endif  // TASKBOARD_COMMON_HTTP_HTTP_RESPONDER_H_
