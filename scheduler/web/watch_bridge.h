#ifndef TASKBOARD_SCHEDULER_WEB_WATCH_BRIDGE_H_
#define TASKBOARD_SCHEDULER_WEB_WATCH_BRIDGE_H_

// Follows one WatchRun call for an HTTP client as server-sent events
// (docs/http-api.md#following-a-run-server-sent-events), without a thread:
// the call's responses arrive on gRPC's callback threads and go out on the
// HTTP server's. A call refused before its first response (a bad token, an
// unknown run) is answered as a JSON error, never a 200 stream; after that,
// one `message` frame per response and an `end` frame with how the call
// ended. One read is in flight at a time, and the next only once the HTTP
// side has sent what it holds, so a slow reader is paced by the scheduler's
// stream rather than buffered here. The HTTP client leaving cancels the
// call; the call's end gives back its stream slot.

#include <memory>
#include <string>

#include "common/http/http_responder.h"
#include "scheduler/web/json_gateway.h"
#include "scheduler/web/stream_slots.h"
#include "taskboard/v1/scheduler.pb.h"

namespace taskboard::web {

// `gateway` must outlive the call (JsonGateway::Shutdown cancels it).
void FollowAsEvents(JsonGateway& gateway, v1::WatchRunRequest request,
                    absl::string_view authorization, std::unique_ptr<StreamSlots::Slot> slot,
                    std::shared_ptr<http::HttpResponder> responder);

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_WATCH_BRIDGE_H_
