#ifndef TASKBOARD_SCHEDULER_WEB_CONSOLE_ROUTES_H_
#define TASKBOARD_SCHEDULER_WEB_CONSOLE_ROUTES_H_

// Serves the web console (docs/console.md) at `/` on the scheduler's HTTP
// port: the page, its script and its stylesheet, embedded in the binary,
// with a Content-Security-Policy that lets it load nothing but itself and
// talk to nothing but this scheduler's API.

namespace httplib {
class Server;
}  // namespace httplib

namespace taskboard::web {

void RouteConsole(httplib::Server& http);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_CONSOLE_ROUTES_H_
