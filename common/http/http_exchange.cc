#include "common/http/http_exchange.h"

#include <microhttpd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace taskboard::http::internal {
namespace {

void AddHeaders(MHD_Response* out, const HttpResponse& response, const HeaderList& headers) {
  MHD_add_response_header(out, MHD_HTTP_HEADER_CONTENT_TYPE, response.content_type.c_str());
  for (const auto& [name, value] : headers) {
    MHD_add_response_header(out, name.c_str(), value.c_str());
  }
  for (const auto& [name, value] : response.headers) {
    MHD_add_response_header(out, name.c_str(), value.c_str());
  }
}

ssize_t ReadStream(void* cls, uint64_t /*pos*/, char* buf, size_t max) {
  return (*static_cast<std::shared_ptr<StreamBody>*>(cls))->Read(buf, max);
}

void FreeStream(void* cls) { delete static_cast<std::shared_ptr<StreamBody>*>(cls); }

// A streamed answer's head: its body comes from `stream` as it is written.
bool QueueStream(MHD_Connection* connection, const HttpResponse& head,
                 const std::shared_ptr<StreamBody>& stream, const HeaderList& headers) {
  constexpr size_t kBlockBytes = 16 << 10;
  auto* holder = new std::shared_ptr<StreamBody>(stream);
  MHD_Response* response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, kBlockBytes,
                                                             &ReadStream, holder, &FreeStream);
  if (response == nullptr) {
    delete holder;
    return false;
  }
  AddHeaders(response, head, headers);
  const MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned int>(head.status), response);
  MHD_destroy_response(response);
  return queued == MHD_YES;
}

}  // namespace

void Waker::Wake() const {
  const uint64_t one = 1;
  [[maybe_unused]] const ssize_t written = write(fd, &one, sizeof(one));
}

bool QueueResponse(MHD_Connection* connection, const HttpResponse& response,
                   const HeaderList& headers) {
  MHD_Response* out = MHD_create_response_from_buffer(
      response.body.size(), const_cast<char*>(response.body.data()), MHD_RESPMEM_MUST_COPY);
  if (out == nullptr) return false;
  AddHeaders(out, response, headers);
  const MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned int>(response.status), out);
  MHD_destroy_response(out);
  return queued == MHD_YES;
}

// --- StreamBody ---

bool StreamBody::Write(std::string chunk) {
  absl::MutexLock lock(&mu_);
  if (closed_ || gone_ || connection_ == nullptr) return false;
  last_write_ = absl::Now();
  if (chunk.empty()) return true;
  buffered_ += chunk.size();
  chunks_.push_back(std::move(chunk));
  ResumeLocked();
  return true;
}

size_t StreamBody::Buffered() const {
  absl::MutexLock lock(&mu_);
  return buffered_;
}

void StreamBody::Close() {
  absl::MutexLock lock(&mu_);
  if (closed_) return;
  closed_ = true;
  ResumeLocked();
}

void StreamBody::SetCallbacks(std::function<void()> drained, std::function<void()> done) {
  {
    absl::MutexLock lock(&mu_);
    drained_ = std::move(drained);
    if (connection_ != nullptr) {
      done_ = std::move(done);
      return;
    }
  }
  // Ended before the producer got here: it still hears of it, once.
  if (done) done();
}

ssize_t StreamBody::Read(char* buf, size_t max) {
  std::function<void()> drained;
  size_t copied = 0;
  {
    absl::MutexLock lock(&mu_);
    if (gone_) return MHD_CONTENT_READER_END_WITH_ERROR;
    if (buffered_ == 0) {
      if (closed_) return MHD_CONTENT_READER_END_OF_STREAM;
      // Nothing to send: park the connection until a Write (returning 0
      // without suspending would make libmicrohttpd ask again at once).
      suspended_ = true;
      MHD_suspend_connection(connection_);
      return 0;
    }
    while (copied < max && !chunks_.empty()) {
      const std::string& front = chunks_.front();
      const size_t take = std::min(max - copied, front.size() - first_offset_);
      std::memcpy(buf + copied, front.data() + first_offset_, take);
      copied += take;
      first_offset_ += take;
      if (first_offset_ == front.size()) {
        chunks_.pop_front();
        first_offset_ = 0;
      }
    }
    buffered_ -= copied;
    if (buffered_ == 0) drained = drained_;
  }
  if (drained) drained();
  return static_cast<ssize_t>(copied);
}

void StreamBody::End() {
  std::function<void()> done;
  {
    absl::MutexLock lock(&mu_);
    if (connection_ == nullptr) return;
    connection_ = nullptr;
    gone_ = true;
    suspended_ = false;
    chunks_.clear();
    buffered_ = 0;
    drained_ = nullptr;
    done = std::move(done_);
  }
  if (done) done();
}

void StreamBody::Cut() {
  absl::MutexLock lock(&mu_);
  gone_ = true;
  ResumeLocked();
}

void StreamBody::HeartbeatIfQuiet(absl::Time now, absl::Duration quiet, const std::string& chunk) {
  {
    absl::MutexLock lock(&mu_);
    if (now - last_write_ < quiet) return;
  }
  Write(chunk);
}

bool StreamBody::waiting() const {
  absl::MutexLock lock(&mu_);
  return suspended_;
}

void StreamBody::ResumeLocked() {
  if (!suspended_ || connection_ == nullptr) return;
  suspended_ = false;
  MHD_resume_connection(connection_);
  waker_->Wake();
}

// --- Exchange ---

void Exchange::Respond(HttpResponse response) {
  absl::MutexLock lock(&mu_);
  ProvideLocked(std::move(response), nullptr);
}

std::shared_ptr<HttpStream> Exchange::Stream(HttpResponse head) {
  absl::MutexLock lock(&mu_);
  if (answered_ || connection_ == nullptr) {
    // Too late: a stream that has already ended, so the producer stops.
    return std::make_shared<StreamBody>(nullptr, waker_);
  }
  auto body = std::make_shared<StreamBody>(connection_, waker_);
  ProvideLocked(std::move(head), body);
  return body;
}

void Exchange::ProvideLocked(HttpResponse response, std::shared_ptr<StreamBody> stream) {
  if (answered_ || connection_ == nullptr) return;
  answered_ = true;
  pending_ = std::move(response);
  stream_ = std::move(stream);
  if (suspended_) {
    suspended_ = false;
    MHD_resume_connection(connection_);
    waker_->Wake();
  }
}

Progress Exchange::Advance(const HeaderList& headers) {
  absl::MutexLock lock(&mu_);
  if (pending_.has_value()) {
    const HttpResponse response = *std::move(pending_);
    pending_.reset();
    const bool queued = stream_ != nullptr ? QueueStream(connection_, response, stream_, headers)
                                           : QueueResponse(connection_, response, headers);
    return queued ? Progress::kQueued : Progress::kFailed;
  }
  if (answered_) return Progress::kQueued;
  suspended_ = true;
  MHD_suspend_connection(connection_);
  return Progress::kWaiting;
}

void Exchange::End() {
  std::shared_ptr<StreamBody> stream;
  {
    absl::MutexLock lock(&mu_);
    connection_ = nullptr;
    suspended_ = false;
    stream = stream_;
  }
  if (stream != nullptr) stream->End();
}

void Exchange::Abort() {
  std::shared_ptr<StreamBody> stream;
  {
    absl::MutexLock lock(&mu_);
    if (connection_ == nullptr) return;
    if (!answered_) {
      answered_ = true;
      pending_ = HttpResponse::Text(503, "The server is stopping; try again shortly.\n");
    }
    if (suspended_) {
      suspended_ = false;
      MHD_resume_connection(connection_);
      waker_->Wake();
    }
    stream = stream_;
  }
  if (stream != nullptr) stream->Cut();
}

std::shared_ptr<StreamBody> Exchange::stream() const {
  absl::MutexLock lock(&mu_);
  return stream_;
}

}  // namespace taskboard::http::internal
