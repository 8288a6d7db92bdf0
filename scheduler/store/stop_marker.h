#ifndef TASKBOARD_SCHEDULER_STORE_STOP_MARKER_H_
#define TASKBOARD_SCHEDULER_STORE_STOP_MARKER_H_

// Whether the previous scheduler on a data directory stopped in a way that
// may have lost writes it had acknowledged, so that recovery can keep event
// numbers from being issued twice (docs/services.md#durability).
//
// Two small files next to RocksDB's: `taskboard-open` ("<boot id>
// <durability>" of the process that opened the store last) and
// `taskboard-clean-stop` (written after a clean close, removed at open).
// Writes may have been lost only when the last stop was not clean and
//   - the durability was `none` (memtables die with the process), or
//   - it was `wal` and the machine restarted since (the page cache died
//     with it: a different boot id).
// With `sync` nothing acknowledged is ever lost.

#include <string>

#include "absl/status/statusor.h"
#include "scheduler/store/store.h"

namespace taskboard::store {

// This machine's boot id (/proc/sys/kernel/random/boot_id); "" if unknown.
std::string CurrentBootId();

// At open, before RocksDB touches `dir`: whether the previous process may
// have lost acknowledged writes. Then records this process (`boot_id`,
// `durability`) and removes the clean-stop file. INTERNAL when the files
// cannot be written.
absl::StatusOr<bool> BeginOpen(const std::string& dir, const std::string& boot_id,
                               Durability durability);

// After RocksDB closed cleanly: writes the clean-stop file (fsynced).
void RecordCleanStop(const std::string& dir);

// After recovery made up for writes BeginOpen said may be lost (and synced
// the store): records this process normally. Until then the open file says
// "lost", so a crash in between is judged as lossy again.
absl::Status ConfirmRecovered(const std::string& dir, const std::string& boot_id,
                              Durability durability);

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_STOP_MARKER_H_
