#include "worker/base/http_post.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace taskboard::worker {
namespace {

// How long one wait for socket activity lasts when the token has no eventfd
// (the token is then checked this often).
constexpr int kPollMillis = 50;

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct MultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

// State the curl callbacks share with HttpPost.
struct Transfer {
  const HttpPostRequest* request;
  CURL* easy;
  HttpResponse response;
  bool decided = false;  // whether the body goes to on_event_stream
  size_t received = 0;
  bool too_large = false;   // passed max_response_bytes: the transfer was cut off
  bool done_early = false;  // stream_done said so: the transfer was ended
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  absl::string_view line(data, size * count);
  // A new status line (after a 100 Continue or a redirect) starts over.
  if (absl::StartsWith(line, "HTTP/")) transfer->response.retry_after.clear();
  if (absl::StartsWith(line, "HTTP/")) transfer->response.headers.clear();
  if (absl::StartsWithIgnoreCase(line, "retry-after:")) {
    line.remove_prefix(std::strlen("retry-after:"));
    transfer->response.retry_after = std::string(absl::StripAsciiWhitespace(line));
    return size * count;
  }
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos) return size * count;
  const std::string name = absl::AsciiStrToLower(line.substr(0, colon));
  const std::vector<std::string>& wanted = transfer->request->capture_headers;
  if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) {
    absl::string_view value = absl::StripAsciiWhitespace(line.substr(colon + 1));
    transfer->response.headers[name] = std::string(value.substr(0, kMaxCapturedHeaderBytes + 1));
  }
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  HttpResponse& response = transfer->response;
  if (!transfer->decided) {
    transfer->decided = true;
    long status = 0;
    curl_easy_getinfo(transfer->easy, CURLINFO_RESPONSE_CODE, &status);
    const char* type = nullptr;
    curl_easy_getinfo(transfer->easy, CURLINFO_CONTENT_TYPE, &type);
    response.status = static_cast<int>(status);
    response.content_type = type != nullptr ? type : "";
    response.streamed =
        transfer->request->on_event_stream && status >= 200 && status < 300 &&
        absl::StrContains(absl::AsciiStrToLower(response.content_type), "text/event-stream");
  }
  absl::string_view bytes(data, size * count);
  transfer->received += bytes.size();
  const size_t limit = response.streamed && transfer->request->max_stream_bytes.has_value()
                           ? *transfer->request->max_stream_bytes
                           : transfer->request->max_response_bytes;
  if (limit > 0 && transfer->received > limit) {
    transfer->too_large = true;
    return 0;  // curl stops with CURLE_WRITE_ERROR
  }
  if (response.streamed) {
    transfer->request->on_event_stream(bytes);
    if (transfer->request->stream_done && transfer->request->stream_done()) {
      transfer->done_early = true;
      return 0;  // curl stops with CURLE_WRITE_ERROR
    }
  } else {
    response.body.append(bytes.data(), bytes.size());
  }
  return size * count;
}

bool Cancelled(const HttpPostRequest& request) {
  return (request.cancel != nullptr && request.cancel->cancelled()) ||
         (request.stop != nullptr && request.stop->cancelled());
}

// Also stops a transfer stuck inside curl_multi_perform (e.g. a slow write).
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return Cancelled(*static_cast<const HttpPostRequest*>(user)) ? 1 : 0;
}

absl::Status TransferError(CURLcode code, CURL* easy, const char* error_buffer,
                           const HttpPostRequest& request) {
  const std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code);
  switch (code) {
    case CURLE_COULDNT_CONNECT: {
      long os_errno = 0;
      curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
      return absl::UnavailableError(os_errno == ECONNREFUSED
                                        ? "connection refused"
                                        : absl::StrCat("cannot connect (", detail, ")"));
    }
    case CURLE_COULDNT_RESOLVE_HOST:
      return absl::UnavailableError(absl::StrCat("cannot resolve the host (", detail, ")"));
    case CURLE_OPERATION_TIMEDOUT:
      // A timeout cut to the task's remaining time reads 1.999921543s
      // otherwise.
      return absl::DeadlineExceededError(
          absl::StrCat("no complete response within ",
                       absl::FormatDuration(absl::Ceil(request.timeout, absl::Milliseconds(1)))));
    case CURLE_ABORTED_BY_CALLBACK:
      return absl::CancelledError("cancelled");
    default:
      return absl::UnavailableError(detail);
  }
}

}  // namespace

absl::StatusOr<HttpResponse> HttpPost(const HttpPostRequest& request) {
  InitCurlOnce();
  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  std::unique_ptr<CURLM, MultiDeleter> multi(curl_multi_init());
  if (!easy || !multi) return absl::ResourceExhaustedError("libcurl could not allocate a handle");

  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const std::string& header : request.headers) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  }
  // Without this curl waits up to a second for "100 Continue" on big bodies.
  headers.reset(curl_slist_append(headers.release(), "Expect:"));

  Transfer transfer{&request, easy.get(), {}};
  char error_buffer[CURL_ERROR_SIZE] = {0};
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
  if (request.method == "GET") {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    if (request.method != "POST")
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(
      e, CURLOPT_TIMEOUT_MS,
      static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(request.timeout))));
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(request.connect_timeout)));
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);  // worker threads; timeouts must not raise signals
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, &OnProgress);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &request);
  curl_multi_add_handle(multi.get(), e);

  // The tokens' eventfds wake the wait; without one (no token, or the
  // process is out of descriptors) the tokens are checked every kPollMillis.
  curl_waitfd extra[2];
  unsigned extra_count = 0;
  bool all_fds = true;
  for (const CancelToken* token : {request.cancel, request.stop}) {
    if (token == nullptr) continue;
    const int fd = token->fd();
    if (fd < 0) {
      all_fds = false;
      continue;
    }
    extra[extra_count++] = curl_waitfd{fd, CURL_WAIT_POLLIN, 0};
  }
  const int wait_millis = all_fds && extra_count > 0 ? 1000 : kPollMillis;
  bool cancelled = false;
  for (int running = 1; running > 0;) {
    if (curl_multi_perform(multi.get(), &running) != CURLM_OK) break;
    if (running == 0) break;
    if (Cancelled(request)) {
      cancelled = true;
      break;
    }
    curl_multi_poll(multi.get(), extra_count > 0 ? extra : nullptr, extra_count, wait_millis,
                    nullptr);
  }
  CURLcode code = CURLE_OK;
  bool finished = false;
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(multi.get(), &queued)) {
    if (message->msg == CURLMSG_DONE) {
      code = message->data.result;
      finished = true;
    }
  }
  curl_multi_remove_handle(multi.get(), e);
  if (cancelled || (!finished && Cancelled(request))) {
    return absl::CancelledError("cancelled");
  }
  if (transfer.too_large) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the response passed ",
                     transfer.response.streamed && request.max_stream_bytes.has_value()
                         ? *request.max_stream_bytes
                         : request.max_response_bytes,
                     " bytes and was cut off"));
  }
  if (transfer.done_early) return std::move(transfer.response);
  if (!finished) return absl::UnavailableError("libcurl stopped without finishing the transfer");
  if (code != CURLE_OK) return TransferError(code, e, error_buffer, request);
  if (!transfer.decided) {  // an empty body: the write callback never ran
    long status = 0;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    transfer.response.status = static_cast<int>(status);
  }
  return std::move(transfer.response);
}

}  // namespace taskboard::worker
