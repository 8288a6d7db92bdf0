#include "scheduler/notify/webhook_signature.h"

#include "absl/strings/str_cat.h"
#include "common/hmac_sha256.h"

namespace taskboard::notify {

std::string WebhookSignature(absl::string_view secret, int64_t timestamp, absl::string_view body) {
  return absl::StrCat("sha256=", HmacSha256Hex(secret, absl::StrCat(timestamp, ".", body)));
}

}  // namespace taskboard::notify
