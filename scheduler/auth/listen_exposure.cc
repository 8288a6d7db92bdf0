#include "scheduler/auth/listen_exposure.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/loopback_host.h"

namespace taskboard::auth {
namespace {

// The host part of host:port or [host]:port; the whole text when it has no
// port.
absl::string_view HostOf(absl::string_view listen) {
  if (absl::StartsWith(listen, "[")) {
    size_t close = listen.find(']');
    return close == absl::string_view::npos ? listen.substr(1) : listen.substr(1, close - 1);
  }
  size_t colon = listen.rfind(':');
  return colon == absl::string_view::npos ? listen : listen.substr(0, colon);
}

}  // namespace

bool ListensOnLoopbackOnly(absl::string_view listen) {
  if (absl::StartsWith(listen, "unix:") || absl::StartsWith(listen, "unix-abstract:")) {
    return true;
  }
  return IsLoopbackHost(HostOf(listen));
}

absl::StatusOr<Exposure> CheckListenExposure(absl::string_view listen, bool has_auth_tokens,
                                             bool insecure) {
  if (ListensOnLoopbackOnly(listen)) return Exposure::kLoopbackOnly;
  if (has_auth_tokens) return Exposure::kAuthenticated;
  if (insecure) return Exposure::kInsecure;
  return absl::FailedPreconditionError(absl::StrCat(
      "--listen ", listen,
      " is reachable from other machines, and without --auth-tokens anyone who reaches it can "
      "submit, cancel and drain: pass --auth-tokens FILE (docs/security.md#tokens), listen on "
      "127.0.0.1, or pass --insecure (TASKBOARD_INSECURE=1) if the network is trusted"));
}

}  // namespace taskboard::auth
