#include "scheduler/notify/curl_webhook_transport.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"

namespace taskboard::notify {
namespace {

constexpr size_t kMaxAnswerBytes = 64 << 10;

struct EasyDeleter {
  void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct SlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

size_t DiscardBody(char*, size_t size, size_t count, void* user) {
  size_t& received = *static_cast<size_t*>(user);
  received += size * count;
  return received > kMaxAnswerBytes ? 0 : size * count;
}

int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(user)->load() ? 1 : 0;
}

}  // namespace

absl::StatusOr<int> CurlWebhookTransport::Post(const WebhookRequest& request,
                                               const std::atomic<bool>& cancel) {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
  if (easy == nullptr) return absl::ResourceExhaustedError("libcurl could not allocate a handle");
  std::unique_ptr<curl_slist, SlistDeleter> headers;
  for (const std::string& header : request.headers) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  }
  headers.reset(curl_slist_append(headers.release(), "Expect:"));
  size_t received = 0;
  char error[CURL_ERROR_SIZE] = {0};
  CURL* e = easy.get();
  curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(e, CURLOPT_POST, 1L);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(e, CURLOPT_USERAGENT, "taskboard-scheduler");
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(request.timeout)));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, DiscardBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &received);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(e, CURLOPT_XFERINFODATA, &cancel);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  const CURLcode code = curl_easy_perform(e);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  // The answer's status is all that counts: a body cut off past the limit
  // still answered.
  if (code == CURLE_WRITE_ERROR && status > 0) return static_cast<int>(status);
  if (code == CURLE_OK) return static_cast<int>(status);
  const std::string detail = error[0] != '\0' ? error : curl_easy_strerror(code);
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return absl::DeadlineExceededError(absl::StrCat(
          "no answer within ", absl::FormatDuration(request.timeout), " (", detail, ")"));
    case CURLE_ABORTED_BY_CALLBACK:
      return absl::CancelledError("the scheduler is stopping");
    default:
      return absl::UnavailableError(detail);
  }
}

}  // namespace taskboard::notify
