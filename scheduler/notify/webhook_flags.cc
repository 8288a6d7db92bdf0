#include "scheduler/notify/webhook_flags.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/webhook_url.h"

namespace taskboard::notify {
namespace {

// The secret's bytes: files written with `echo` or an editor end in a
// newline that is not part of the key.
absl::StatusOr<std::string> ReadSecret(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("--approval-webhook-secret-file ", path,
                                                   ": cannot read it (", std::strerror(errno),
                                                   "); give a readable file holding the HMAC key"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  std::string secret = text.str();
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--approval-webhook-secret-file ", path,
                     ": the file is empty; write the HMAC key in it (e.g. `openssl rand -hex "
                     "32 > ",
                     path, "`)"));
  }
  return secret;
}

}  // namespace

absl::Status ApplyWebhookFlags(const WebhookFlags& flags, WebhookNotifierOptions& options,
                               std::vector<std::string>& allow) {
  if (!flags.url.empty()) {
    if (absl::Status url = CheckWebhookUrl(flags.url); !url.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--approval-webhook: ", url.message()));
    }
  }
  for (const std::string& prefix : flags.allow) {
    if (absl::Status url = CheckWebhookUrl(prefix); !url.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--approval-webhook-allow: prefix ", url.message(),
                       " (prefixes are URLs such as https://hooks.example.com/)"));
    }
  }
  if (!flags.secret_file.empty()) {
    absl::StatusOr<std::string> secret = ReadSecret(flags.secret_file);
    if (!secret.ok()) return secret.status();
    options.secret = *std::move(secret);
  }
  options.url = flags.url;
  options.retry.attempts = flags.attempts;
  options.queue_capacity = static_cast<size_t>(flags.queue);
  allow = flags.allow;
  return absl::OkStatus();
}

}  // namespace taskboard::notify
