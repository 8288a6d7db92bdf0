#ifndef TASKBOARD_SCHEDULER_FLOW_FLOW_ERRORS_H_
#define TASKBOARD_SCHEDULER_FLOW_FLOW_ERRORS_H_

// Collects every problem found in a flow definition, each with the JSON path
// it concerns, so a user sees all of them at once (docs/semantics.md#validation).
//
// The collected list travels inside an absl::Status as a payload keyed by
// kFlowErrorsPayloadUrl (a serialized taskboard.v1.FlowErrors); the gRPC
// layer turns that payload into google.rpc.Status details.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "taskboard/v1/common.pb.h"

namespace taskboard::flow {

inline constexpr char kFlowErrorsPayloadUrl[] = "type.googleapis.com/taskboard.v1.FlowErrors";

class FlowErrorList {
 public:
  // Exact duplicates (same path and message) are recorded once. Invalid
  // UTF-8 in either is replaced with U+FFFD.
  void Add(std::string path, std::string message);

  bool empty() const { return errors_.errors().empty(); }
  int size() const { return errors_.errors_size(); }
  const v1::FlowErrors& proto() const { return errors_; }

  // A path whose value was unusable (e.g. a null phase): later checks skip
  // it instead of piling derived errors on top of the first one.
  void MarkBroken(std::string path) { broken_.insert(std::move(path)); }
  bool IsBroken(absl::string_view path) const { return broken_.contains(path); }

  // OK when empty; else INVALID_ARGUMENT whose message lists every error as
  // `path: message` lines and whose payload carries them structured.
  absl::Status ToStatus(absl::string_view what = "flow is invalid") const;

 private:
  v1::FlowErrors errors_;
  absl::flat_hash_set<std::string> broken_;
  absl::flat_hash_set<std::string> seen_;  // "path\nmessage" of recorded errors
};

// The structured errors carried by a status built with ToStatus (empty when
// there are none).
v1::FlowErrors FlowErrorsFromStatus(const absl::Status& status);

// `path: message`, or just `message` at the document root.
std::string FormatFlowError(const v1::FlowError& error);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_FLOW_ERRORS_H_
