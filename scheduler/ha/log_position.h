#ifndef TASKBOARD_SCHEDULER_HA_LOG_POSITION_H_
#define TASKBOARD_SCHEDULER_HA_LOG_POSITION_H_

// A position in the replication log: the epoch of the leader that wrote an
// entry and the entry's index (1, 2, ... across epochs, one per committed
// store batch). Every replica keeps the position of the last batch it holds
// in its own store, under kPositionKey of the meta column, written in the
// same RocksDB batch as the data, so the two never disagree after a crash.
// Two replicas holding the same (epoch, index) hold the same log up to it:
// one leader assigns each index of its epoch once.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace taskboard::ha {

struct LogPosition {
  uint64_t epoch = 0;  // the leader key's create_revision in etcd (0: none)
  uint64_t index = 0;  // 0: no entry yet

  bool operator==(const LogPosition& other) const {
    return epoch == other.epoch && index == other.index;
  }
  bool operator!=(const LogPosition& other) const { return !(*this == other); }
};

// The key, in store::Column::kMeta.
inline constexpr absl::string_view kPositionKey = "ha/position";

// 16 bytes: epoch and index, big-endian.
std::string EncodeLogPosition(const LogPosition& position);
// DATA_LOSS when `bytes` is not an encoded position.
absl::StatusOr<LogPosition> DecodeLogPosition(absl::string_view bytes);

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_LOG_POSITION_H_
