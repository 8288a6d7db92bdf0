#ifndef TASKBOARD_SCHEDULER_AUTH_LISTEN_EXPOSURE_H_
#define TASKBOARD_SCHEDULER_AUTH_LISTEN_EXPOSURE_H_

// Secure by default (docs/security.md#production-defaults): a scheduler that
// other machines can reach must require tokens, unless its operator says, with
// --insecure, that the network itself is trusted. This decides, from the flags
// alone, whether a scheduler may start.

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::auth {

// Whether the --listen address `listen` (host:port, [v6]:port or a gRPC
// unix: URI) accepts connections from this machine only: 127.0.0.0/8, ::1 (also
// as ::ffff:127.x.y.z), localhost, or a unix socket. An empty host, 0.0.0.0,
// [::], any other address and any other host name count as reachable from
// elsewhere (a name may resolve to anything).
bool ListensOnLoopbackOnly(absl::string_view listen);

enum class Exposure {
  kLoopbackOnly,   // only this machine can connect
  kAuthenticated,  // reachable, every call needs a token (--auth-tokens)
  kInsecure,       // reachable without tokens, because --insecure says so
};

// Whether a scheduler listening on `listen` may start. FAILED_PRECONDITION
// when `listen` is reachable from other machines with neither --auth-tokens
// nor --insecure; the message says which flag to pass.
absl::StatusOr<Exposure> CheckListenExposure(absl::string_view listen, bool has_auth_tokens,
                                             bool insecure);

}  // namespace taskboard::auth

#endif  // TASKBOARD_SCHEDULER_AUTH_LISTEN_EXPOSURE_H_
