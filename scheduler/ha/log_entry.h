#ifndef TASKBOARD_SCHEDULER_HA_LOG_ENTRY_H_
#define TASKBOARD_SCHEDULER_HA_LOG_ENTRY_H_

// One entry of the replication log: a committed store batch as RocksDB wrote
// it (rocksdb::WriteBatch::Data(), the bytes a replica applies unchanged) at
// its log position. The bytes are shared, never copied, between the log and
// the streams that send them.

#include <cstdint>
#include <memory>
#include <string>

#include "scheduler/ha/log_position.h"

namespace taskboard::ha {

struct LogEntry {
  LogPosition position;
  std::shared_ptr<const std::string> batch;
  int64_t leader_unix_ms = 0;  // when the leader committed it (replication lag)
};

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_LOG_ENTRY_H_
