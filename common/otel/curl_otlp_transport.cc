#include "common/otel/curl_otlp_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace taskboard::otel {
namespace {

constexpr size_t kMaxResponseBytes = 64 << 10;
// How often a transfer in progress looks at the cancel notification.
constexpr int kCancelPollMillis = 20;

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<OtlpHttpResponse*>(user);
  absl::string_view line(data, size * count);
  if (absl::StartsWith(line, "HTTP/")) response->retry_after.clear();
  if (absl::StartsWithIgnoreCase(line, "retry-after:")) {
    line.remove_prefix(std::strlen("retry-after:"));
    response->retry_after = std::string(absl::StripAsciiWhitespace(line));
  }
  return size * count;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* response = static_cast<OtlpHttpResponse*>(user);
  const size_t room = kMaxResponseBytes - std::min(kMaxResponseBytes, response->body.size());
  response->body.append(data, std::min(room, size * count));
  return size * count;
}

absl::Status TransferError(CURLcode code, CURL* easy, const char* error_buffer,
                           absl::Duration timeout) {
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
      return absl::DeadlineExceededError(
          absl::StrCat("no complete answer within ", absl::FormatDuration(timeout)));
    default:
      return absl::UnavailableError(detail);
  }
}

}  // namespace

struct CurlOtlpTransport::Handles {
  CURL* easy = nullptr;
  CURLM* multi = nullptr;
  ~Handles() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    if (multi != nullptr) curl_multi_cleanup(multi);
  }
};

CurlOtlpTransport::CurlOtlpTransport() : handles_(std::make_unique<Handles>()) {
  InitCurlOnce();
  handles_->easy = curl_easy_init();
  handles_->multi = curl_multi_init();
}

CurlOtlpTransport::~CurlOtlpTransport() = default;

absl::StatusOr<OtlpHttpResponse> CurlOtlpTransport::Post(const OtlpHttpRequest& request,
                                                         const absl::Notification& cancel) {
  CURL* e = handles_->easy;
  CURLM* multi = handles_->multi;
  if (e == nullptr || multi == nullptr) {
    return absl::ResourceExhaustedError("libcurl could not allocate a handle");
  }
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const std::string& header : request.headers) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  }
  // Without this curl waits up to a second for "100 Continue" on big bodies.
  headers.reset(curl_slist_append(headers.release(), "Expect:"));

  OtlpHttpResponse response;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  const long timeout_ms =
      static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(request.timeout)));
  // Options persist on the handle between calls; every one this call relies
  // on is set again here.
  curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(e, CURLOPT_USERAGENT, "taskboard-otlp");
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &response);
  curl_multi_add_handle(multi, e);

  bool cancelled = false;
  for (int running = 1; running > 0;) {
    if (curl_multi_perform(multi, &running) != CURLM_OK || running == 0) break;
    if (cancel.HasBeenNotified()) {
      cancelled = true;
      break;
    }
    curl_multi_poll(multi, nullptr, 0, kCancelPollMillis, nullptr);
  }
  CURLcode code = CURLE_OK;
  bool finished = false;
  int queued = 0;
  while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
    if (message->msg == CURLMSG_DONE) {
      code = message->data.result;
      finished = true;
    }
  }
  curl_multi_remove_handle(multi, e);
  // The handle outlives this call: nothing may point at this frame.
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, nullptr);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, nullptr);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, nullptr);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, nullptr);
  if (cancelled) return absl::CancelledError("the exporter is shutting down");
  if (!finished) return absl::UnavailableError("libcurl stopped without finishing the transfer");
  if (code != CURLE_OK) return TransferError(code, e, error_buffer, request.timeout);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  return response;
}

}  // namespace taskboard::otel
