#ifndef TASKBOARD_COMMON_WEBHOOK_URL_H_
#define TASKBOARD_COMMON_WEBHOOK_URL_H_

// The URLs the scheduler may POST approval notifications to
// (docs/approvals.md#notify): the --approval-webhook flag, a flow's
// `approvalWebhook`, and the --approval-webhook-allow prefixes that bound
// the latter, so a client cannot make the scheduler POST to any host it
// can reach.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace taskboard {

// The longest webhook URL accepted.
inline constexpr size_t kMaxWebhookUrlBytes = 2048;

// INVALID_ARGUMENT (a message without the field's name, which callers add)
// unless `url` is an http:// or https:// URL with a host, at most
// kMaxWebhookUrlBytes, without spaces or control characters.
absl::Status CheckWebhookUrl(absl::string_view url);

// Whether `url` starts with one of `prefixes` at a boundary: a prefix that
// does not end in '/' must be followed by the end of the URL or by '/', '?'
// or '#' (so "https://hooks.example.com" does not allow
// "https://hooks.example.com.evil.net/").
bool WebhookUrlAllowed(absl::string_view url, const std::vector<std::string>& prefixes);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_WEBHOOK_URL_H_
