#include "scheduler/engine/approval_event.h"

namespace taskboard::engine {

absl::string_view ApprovalEventName(ApprovalEvent::Kind kind) {
  return kind == ApprovalEvent::Kind::kWaiting ? "approval.waiting" : "approval.decided";
}

}  // namespace taskboard::engine
