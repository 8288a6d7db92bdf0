#ifndef TASKBOARD_COMMON_HMAC_SHA256_H_
#define TASKBOARD_COMMON_HMAC_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard {

// Lower-case hex HMAC-SHA256 of `data` under `key` (RFC 2104, OpenSSL's
// implementation): what signs the approval webhook's requests.
std::string HmacSha256Hex(absl::string_view key, absl::string_view data);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_HMAC_SHA256_H_
