#ifndef TASKBOARD_COMMON_LOOPBACK_HOST_H_
#define TASKBOARD_COMMON_LOOPBACK_HOST_H_

// Whether a host names this machine only. One rule for every place that
// asks: a listener's exposure (scheduler/auth/listen_exposure.h) and the
// HTTP port's Host check against DNS rebinding (scheduler/web/request_guard.h).

#include "absl/strings/string_view.h"

namespace taskboard {

// "localhost" (and "localhost."), 127.0.0.0/8, ::1 and
// ::ffff:127.x.y.z, with or without the brackets of an IPv6 literal; case
// does not matter. Any other name counts as elsewhere (it may resolve to
// anything).
bool IsLoopbackHost(absl::string_view host);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_LOOPBACK_HOST_H_
