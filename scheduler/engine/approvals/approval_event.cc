#include "scheduler/engine/approvals/approval_event.h"

namespace taskboard::engine {

absl::string_view ApprovalEventName(ApprovalEvent::Kind kind) {
  switch (kind) {
    case ApprovalEvent::Kind::kWaiting:
      return "approval.waiting";
    case ApprovalEvent::Kind::kDecided:
      return "approval.decided";
    case ApprovalEvent::Kind::kCancelled:
      return "approval.cancelled";
  }
  return "approval.unknown";
}

}  // namespace taskboard::engine
