// Scheduler's trigger calls (docs/schedules.md#event-triggers): each admits
// the call and runs the engine's triggers on its loop for the caller's
// tenant (a tenant's own, like its schedules), answering once the batch
// holding the change, the deliveries and the runs they started is written.
//
// PublishEvent is the one call a caller without a token may make, when
// authentication is on: an event signed with X-Hub-Signature-256 is admitted
// by the gate's leader and size checks alone, and the engine checks the
// signature against the secrets of the triggers of the event's name
// (docs/schedules.md#who-may-publish). The payload is parsed here, off the
// loop, under the scheduler's JSON depth limit.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "scheduler/server/client_metadata.h"
#include "scheduler/server/engine_answer.h"
#include "scheduler/server/grpc_status.h"
#include "scheduler/server/scheduler_service.h"
#include "scheduler/server/tenant_component_call.h"
#include "scheduler/triggers/hub_signature.h"

namespace taskboard::server {
namespace {

// Headers an event may carry to its triggers, and how large each may be:
// the HTTP port bounds the head as a whole, gRPC callers too.
constexpr int kMaxEventHeaders = 64;
constexpr size_t kMaxEventHeaderBytes = 1024;

// The event of `request`: INVALID_ARGUMENT for a payload that is not a JSON
// object (or nests deeper than --max-json-depth), or too many headers.
absl::StatusOr<triggers::Event> EventOf(const v1::PublishEventRequest& request) {
  triggers::Event event;
  event.name = request.name();
  if (event.name.empty()) {
    return absl::InvalidArgumentError("PublishEvent needs the event's name");
  }
  if (request.headers_size() > kMaxEventHeaders) {
    return absl::InvalidArgumentError(absl::StrCat("the event has ", request.headers_size(),
                                                   " headers; at most ", kMaxEventHeaders,
                                                   " are passed to triggers"));
  }
  for (const auto& [name, value] : request.headers()) {
    if (name.size() + value.size() > kMaxEventHeaderBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("event header ", name, " is over ", kMaxEventHeaderBytes, " bytes"));
    }
    event.headers[absl::AsciiStrToLower(name)] = value;
  }
  if (request.payload().empty()) return event;
  absl::StatusOr<Json> payload = ParseJson(request.payload());
  if (!payload.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the event's payload is not JSON: ", payload.status().message()));
  }
  if (!payload->is_object()) {
    return absl::InvalidArgumentError("the event's payload must be a JSON object");
  }
  event.payload = *std::move(payload);
  return event;
}

}  // namespace

using TriggerAnswer = absl::StatusOr<v1::Trigger>;

grpc::ServerUnaryReactor* SchedulerService::CreateTrigger(grpc::CallbackServerContext* context,
                                                          const v1::CreateTriggerRequest* request,
                                                          v1::CreateTriggerResponse* response) {
  return OnComponent<engine::Triggers, TriggerAnswer>(
      context, "CreateTrigger", request,
      [source = request->source()](engine::Triggers& t, const std::string& tenant) {
        return t.Create(tenant, source);
      },
      [response](TriggerAnswer& answer) { *response->mutable_trigger() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::UpdateTrigger(grpc::CallbackServerContext* context,
                                                          const v1::UpdateTriggerRequest* request,
                                                          v1::UpdateTriggerResponse* response) {
  return OnComponent<engine::Triggers, TriggerAnswer>(
      context, "UpdateTrigger", request,
      [source = request->source()](engine::Triggers& t, const std::string& tenant) {
        return t.Update(tenant, source);
      },
      [response](TriggerAnswer& answer) { *response->mutable_trigger() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::GetTrigger(grpc::CallbackServerContext* context,
                                                       const v1::GetTriggerRequest* request,
                                                       v1::GetTriggerResponse* response) {
  return OnComponent<engine::Triggers, TriggerAnswer>(
      context, "GetTrigger", request,
      [name = request->name()](engine::Triggers& t, const std::string& tenant) {
        return t.Get(tenant, name);
      },
      [response](TriggerAnswer& answer) { *response->mutable_trigger() = *std::move(answer); });
}

grpc::ServerUnaryReactor* SchedulerService::ListTriggers(grpc::CallbackServerContext* context,
                                                         const v1::ListTriggersRequest* request,
                                                         v1::ListTriggersResponse* response) {
  using Answer = absl::StatusOr<std::vector<v1::Trigger>>;
  return OnComponent<engine::Triggers, Answer>(
      context, "ListTriggers", request,
      [](engine::Triggers& t, const std::string& tenant) -> Answer { return t.List(tenant); },
      [response](Answer& answer) {
        for (v1::Trigger& trigger : *answer) *response->add_triggers() = std::move(trigger);
      });
}

grpc::ServerUnaryReactor* SchedulerService::DeleteTrigger(grpc::CallbackServerContext* context,
                                                          const v1::DeleteTriggerRequest* request,
                                                          v1::DeleteTriggerResponse* response) {
  return OnComponent<engine::Triggers, absl::Status>(
      context, "DeleteTrigger", request,
      [name = request->name()](engine::Triggers& t, const std::string& tenant) {
        return t.Delete(tenant, name);
      },
      [](absl::Status&) {});
}

grpc::ServerUnaryReactor* SchedulerService::ListTriggerDeliveries(
    grpc::CallbackServerContext* context, const v1::ListTriggerDeliveriesRequest* request,
    v1::ListTriggerDeliveriesResponse* response) {
  using Answer = absl::StatusOr<std::vector<v1::TriggerDelivery>>;
  return OnComponent<engine::Triggers, Answer>(
      context, "ListTriggerDeliveries", request,
      [name = request->name()](engine::Triggers& t, const std::string& tenant) {
        return t.Deliveries(tenant, name);
      },
      [response](Answer& answer) {
        for (v1::TriggerDelivery& delivery : *answer) {
          *response->add_deliveries() = std::move(delivery);
        }
      });
}

grpc::ServerUnaryReactor* SchedulerService::PublishEvent(grpc::CallbackServerContext* context,
                                                         const v1::PublishEventRequest* request,
                                                         v1::PublishEventResponse* response) {
  const std::string method = SchedulerMethod("PublishEvent");
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  bool signed_event = false;
  for (const auto& [name, value] : request->headers()) {
    if (absl::AsciiStrToLower(name) == triggers::kHubSignatureHeader && !value.empty()) {
      signed_event = true;
    }
  }
  // Without a token, only a signature can admit the event; with one, the
  // token says whose triggers it reaches.
  const bool anonymous =
      gate_->authenticating() && ClientMetadata(*context, "authorization").empty();
  if (anonymous && !signed_event) {
    reactor->Finish(ToGrpcStatus(absl::UnauthenticatedError(
        "PublishEvent needs a bearer token (Authorization: Bearer <token>) or a body signed "
        "with a trigger's secret (X-Hub-Signature-256; docs/schedules.md#who-may-publish)")));
    return reactor;
  }
  absl::StatusOr<auth::Caller> caller = anonymous ? gate_->AdmitSigned(*context, method, request)
                                                  : gate_->Admit(*context, method, request);
  if (!caller.ok()) {
    reactor->Finish(ToGrpcStatus(caller.status()));
    return reactor;
  }
  absl::StatusOr<triggers::Event> event = EventOf(*request);
  if (!event.ok()) {
    reactor->Finish(ToGrpcStatus(event.status()));
    return reactor;
  }
  engine::Triggers::Publisher publisher;
  if (!anonymous) publisher.tenant = caller->tenant();
  using Answer = absl::StatusOr<v1::PublishEventResponse>;
  engine()->OnComponent<engine::Triggers, Answer>(
      [publisher = std::move(publisher), event = *std::move(event), body = request->payload()](
          engine::Triggers& triggers) { return triggers.Publish(publisher, event, body); },
      [reactor, response](Answer answer) {
        FinishAnswer<Answer>(reactor, answer, [response](Answer& a) { *response = *std::move(a); });
      });
  return reactor;
}

}  // namespace taskboard::server
