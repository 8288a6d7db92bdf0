#include "common/webhook_url.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace taskboard {

absl::Status CheckWebhookUrl(absl::string_view url) {
  if (url.size() > kMaxWebhookUrlBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "URL is ", url.size(), " bytes, over the limit of ", kMaxWebhookUrlBytes, " bytes"));
  }
  absl::string_view rest = url;
  if (!absl::ConsumePrefix(&rest, "https://") && !absl::ConsumePrefix(&rest, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", url, "' must start with http:// or https://"));
  }
  for (char c : url) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) ||
        absl::ascii_iscntrl(static_cast<unsigned char>(c))) {
      return absl::InvalidArgumentError(
          "URL has spaces or control characters; percent-encode them");
    }
  }
  const size_t host_end = rest.find_first_of("/?#");
  absl::string_view authority = rest.substr(0, host_end);
  if (const size_t at = authority.rfind('@'); at != absl::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  if (authority.empty() || authority.front() == ':') {
    return absl::InvalidArgumentError(absl::StrCat("'", url, "' has no host"));
  }
  return absl::OkStatus();
}

bool WebhookUrlAllowed(absl::string_view url, const std::vector<std::string>& prefixes) {
  for (const std::string& prefix : prefixes) {
    if (prefix.empty() || !absl::StartsWith(url, prefix)) continue;
    if (prefix.back() == '/' || url.size() == prefix.size()) return true;
    const char next = url[prefix.size()];
    if (next == '/' || next == '?' || next == '#') return true;
  }
  return false;
}

}  // namespace taskboard
