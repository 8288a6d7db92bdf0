#ifndef TASKBOARD_SCHEDULER_TRIGGERS_HUB_SIGNATURE_H_
#define TASKBOARD_SCHEDULER_TRIGGERS_HUB_SIGNATURE_H_

// GitHub's webhook signature (docs/schedules.md#who-may-publish): the header
// `X-Hub-Signature-256: sha256=<hex>` where hex is the HMAC-SHA256 of the
// raw request body under the webhook's secret. Checked over the bytes as
// received, before any parsing, and compared in constant time so the time
// an answer takes says nothing about how much of a guess was right.

#include <string>

#include "absl/strings/string_view.h"

namespace taskboard::triggers {

inline constexpr char kHubSignatureHeader[] = "x-hub-signature-256";

// `sha256=<lower-case hex>` of `body` under `secret`.
std::string HubSignature(absl::string_view secret, absl::string_view body);

// Whether `header` (the header's value) is the signature of `body` under
// `secret`. False for a malformed header (no `sha256=`, not 64 hex digits;
// upper-case digits are accepted).
bool HubSignatureMatches(absl::string_view secret, absl::string_view body,
                         absl::string_view header);

}  // namespace taskboard::triggers

#endif  // TASKBOARD_SCHEDULER_TRIGGERS_HUB_SIGNATURE_H_
