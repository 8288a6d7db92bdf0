#ifndef TASKBOARD_SCHEDULER_POLICY_OBSERVATION_SOURCE_H_
#define TASKBOARD_SCHEDULER_POLICY_OBSERVATION_SOURCE_H_

// Where a RequestLedger's observation bodies live when the ledger does not
// hold them itself. The scheduler's ledgers keep only their indexes in
// memory (seq, task, tool, error flag, token estimate: tens of bytes per
// call) and read the bodies they select through this interface, which the
// engine implements over the store with a bounded cache
// (engine/tool_calls/ledger_book.h). Policies never see the store: they select seqs
// from the indexes and read exactly those.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "taskboard/v1/policy.pb.h"

namespace taskboard::policy {

class ObservationSource {
 public:
  virtual ~ObservationSource() = default;

  // The observations of request `request_id` with these seqs, in the order
  // given (the ledger has checked that they exist). Errors: the store's read
  // error (UNAVAILABLE, INTERNAL), DATA_LOSS for an entry that is missing or
  // does not parse.
  virtual absl::StatusOr<std::vector<v1::Observation>> Read(const std::string& request_id,
                                                            absl::Span<const int64_t> seqs) = 0;

  // An observation just appended to the request's ledger (its durable write
  // is the engine's business): new calls are the likeliest to be selected
  // next, so a source with a cache keeps it.
  virtual void Appended(const std::string& request_id, const v1::Observation& observation) = 0;
};

}  // namespace taskboard::policy

#endif  // TASKBOARD_SCHEDULER_POLICY_OBSERVATION_SOURCE_H_
