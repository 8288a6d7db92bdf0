#ifndef TASKBOARD_SCHEDULER_STORE_STORE_H_
#define TASKBOARD_SCHEDULER_STORE_STORE_H_

// The scheduler's durable state behind a small interface: ordered key/value
// columns, atomic batched writes, point reads and ordered range scans.
//
// Two implementations share one test suite (tests/unit/store): an in-memory
// store for unit tests and benchmarks, and RocksDB (rocksdb_store.h), where
// each Column is a column family. Engine code only sees this interface, so it
// never depends on RocksDB types.
//
// Thread safety: implementations are safe for concurrent use. Writes are
// expected from one writer (the engine's commit thread, or its loop) and
// reads from any thread; a read observes either all or none of a batch.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace taskboard::store {

// The column families of docs/design.md#storage; each has its own key codec in
// keys.h.
enum class Column : int {
  kRuns = 0,  // run id -> run record + spec
  kTasks,     // run id / task id -> task record
  kEvents,    // run id / seq -> run event
  kLedger,    // request id / seq -> observation (+ index by task)
  kCache,     // scope key -> cache entry with expiry
  kFlows,     // flow name / version -> saved flow
  kMeta,      // schema version, sequence counters
};
inline constexpr int kColumnCount = 7;

// The column family name of `column` (stable: it names on-disk data).
absl::string_view ColumnName(Column column);

// A set of mutations applied atomically by Store::Write, in order.
class WriteBatch {
 public:
  struct Op {
    Column column;
    std::string key;
    std::optional<std::string> value;  // nullopt: delete
  };

  void Put(Column column, absl::string_view key, absl::string_view value);
  // Put without copying: a commit hands over the keys and records it just
  // serialized (a 10,000-task submit writes 30,000 of them).
  void PutOwned(Column column, std::string key, std::string value);
  void Delete(Column column, absl::string_view key);

  const std::vector<Op>& ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  // Bytes of keys and values, for metrics and batch-size limits.
  size_t ByteSize() const { return bytes_; }
  void Clear();

 private:
  std::vector<Op> ops_;
  size_t bytes_ = 0;
};

// How hard a write tries to survive a crash (the `--durability` flag).
enum class Durability {
  kSync,  // fsync the WAL on every write (default in production)
  kWal,   // write the WAL without fsync: survives a process crash, not power loss
  kNone,  // no WAL (benchmarks): a crash loses recent writes
};

// Parses `sync`, `wal` or `none`; INVALID_ARGUMENT naming the choices otherwise.
absl::StatusOr<Durability> ParseDurability(absl::string_view text);

class Store {
 public:
  virtual ~Store() = default;

  // Applies every op of `batch` atomically. An error (UNAVAILABLE / INTERNAL
  // from the disk) means none of it may be assumed applied.
  virtual absl::Status Write(const WriteBatch& batch) = 0;

  // The value at `key`, or nullopt when absent.
  virtual absl::StatusOr<std::optional<std::string>> Get(Column column, absl::string_view key) = 0;

  // The values at `keys`, in order (nullopt where absent); the first read
  // error fails the whole call. The default calls Get per key; RocksDB
  // batches the lookups (the ledger reads a selection's entries this way).
  virtual absl::StatusOr<std::vector<std::optional<std::string>>> MultiGet(
      Column column, absl::Span<const std::string> keys);

  // Calls `visit(key, value)` for each key in [start, end) in byte order
  // (`end` empty: to the end of the column) until it returns false.
  using Visitor = std::function<bool(absl::string_view key, absl::string_view value)>;
  virtual absl::Status Scan(Column column, absl::string_view start, absl::string_view end,
                            const Visitor& visit) = 0;

  // Like Scan, but in reverse byte order: from the last key before `end`
  // down to `start`. Used for "newest first" listings and the last seq.
  virtual absl::Status ScanReverse(Column column, absl::string_view start, absl::string_view end,
                                   const Visitor& visit) = 0;

  // Every key that starts with `prefix`, in order.
  absl::Status ScanPrefix(Column column, absl::string_view prefix, const Visitor& visit);

  // Like Scan, for a large range read once (recovery at start reads every
  // task of every active run): RocksDB reads ahead and keeps the blocks out
  // of its cache, which stays with the reads that repeat. The default scans.
  virtual absl::Status ScanOnce(Column column, absl::string_view start, absl::string_view end,
                                const Visitor& visit) {
    return Scan(column, start, end, visit);
  }
  // ScanOnce of every key that starts with `prefix`.
  absl::Status ScanPrefixOnce(Column column, absl::string_view prefix, const Visitor& visit);

  // True when the process that used this store before stopped without a
  // clean shutdown in a way that may have lost writes it had acknowledged
  // (stop_marker.h): recovery then keeps event numbers from being reused.
  virtual bool MayHaveLostWrites() const { return false; }
  // Makes every write so far survive a power loss (whatever the
  // durability), then records that recovery is done: a later unclean stop
  // is judged on its own. Recovery calls it after it has made up for lost
  // writes; until then a crash keeps MayHaveLostWrites true.
  virtual absl::Status SyncAndConfirmRecovery() { return absl::OkStatus(); }
  // A consistent copy of the store as of now, in `dir` (which must not exist,
  // on the store's filesystem so that files can be hard links), that opens as
  // a store of its own: `taskboard admin backup` (docs/operations.md#backup-and-restore).
  // May run next to the writer. FAILED_PRECONDITION for a store that keeps
  // nothing on disk; INTERNAL with the storage engine's message.
  virtual absl::Status Checkpoint(const std::string& dir);
  // The store as it is now, for reading only: later writes do not change
  // what it shows. A replicated scheduler's leader takes one after each
  // written batch and lets other threads read it once followers hold the
  // batch (docs/high-availability.md#acknowledged-writes). Cheap for RocksDB
  // (a snapshot); the in-memory store copies itself. Null when the store
  // cannot take one (the default); never written to.
  virtual std::shared_ptr<Store> ReadSnapshot() { return nullptr; }
};

// The smallest key greater than every key that starts with `prefix` ("" when
// there is none: the prefix is all 0xff bytes).
std::string PrefixEnd(absl::string_view prefix);

}  // namespace taskboard::store

#endif  // TASKBOARD_SCHEDULER_STORE_STORE_H_
