#include "scheduler/auth/listen_exposure.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

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

bool IsLoopbackIp(const std::string& host) {
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) {
    return (ntohl(v4.s_addr) >> 24) == 127;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

}  // namespace

bool ListensOnLoopbackOnly(absl::string_view listen) {
  if (absl::StartsWith(listen, "unix:") || absl::StartsWith(listen, "unix-abstract:")) {
    return true;
  }
  std::string host = absl::AsciiStrToLower(HostOf(listen));
  if (host == "localhost" || host == "localhost.") return true;
  return IsLoopbackIp(host);
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
