#ifndef TASKBOARD_SCHEDULER_WEB_CONSOLE_ROUTES_H_
#define TASKBOARD_SCHEDULER_WEB_CONSOLE_ROUTES_H_

// Serves the web console (docs/console.md) at `/` on the scheduler's HTTP
// port: the page, its script and its stylesheet, embedded in the binary,
// with a Content-Security-Policy that lets it load nothing but itself and
// talk to nothing but this scheduler's API. Each request must pass the Host
// check (request_guard.h), so a page rebound to 127.0.0.1 gets nothing.
// GET /console-config.json tells the page its setup (console_config.h).

#include <vector>

#include "common/http/http_server.h"
#include "scheduler/web/console_config.h"
#include "scheduler/web/request_guard.h"

namespace taskboard::web {

std::vector<http::HttpRoute> ConsoleRoutes(const RequestGuardOptions& guard,
                                          const ConsoleOptions& console);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_CONSOLE_ROUTES_H_
