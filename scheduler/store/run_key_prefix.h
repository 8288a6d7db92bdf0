#ifndef TASKBOARD_SCHEDULER_STORE_RUN_KEY_PREFIX_H_
#define TASKBOARD_SCHEDULER_STORE_RUN_KEY_PREFIX_H_

// The run a stored key belongs to, as the leading bytes of the key (keys.h):
// `Str(run_id)` for tasks, events and runs, `tag/` + `Str(run_id)` for the
// per-run meta keys (run-phase/...). RocksDB uses it to remember, per run,
// where the last key went into the memtable, so a commit's keys of one run
// (a submit's 10,000 tasks, phases and events, mostly in key order) are
// inserted next to the previous one instead of each searched for from the
// top. It changes nothing stored: keys out of its domain are inserted as
// before, and reads never use it.

#include <memory>

#include "rocksdb/slice_transform.h"

namespace taskboard::store {

std::shared_ptr<const rocksdb::SliceTransform> NewRunKeyPrefix();

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_RUN_KEY_PREFIX_H_
