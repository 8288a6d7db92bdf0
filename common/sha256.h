#ifndef TASKBOARD_COMMON_SHA256_H_
#define TASKBOARD_COMMON_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard {

// Lower-case hex SHA-256 of `data` (OpenSSL's implementation).
std::string Sha256Hex(absl::string_view data);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_SHA256_H_
