#include "scheduler/store/run_key_prefix.h"

#include <cstddef>
#include <cstdint>

#include "rocksdb/slice.h"

namespace taskboard::store {
namespace {

// Tags of meta keys are short words; a run id follows the '/'.
constexpr size_t kMaxTagBytes = 24;

// Where the `Str(...)` (a 4-byte big-endian length, then the bytes) at
// `offset` ends, or 0 when the bytes there are not one.
size_t StrPrefixEnd(const rocksdb::Slice& key, size_t offset) {
  if (key.size() < offset + 4) return 0;
  uint32_t length = 0;
  for (size_t i = 0; i < 4; ++i) {
    length = (length << 8) | static_cast<unsigned char>(key[offset + i]);
  }
  const size_t end = offset + 4 + length;
  return length > 0 && end <= key.size() ? end : 0;
}

size_t RunPrefixEnd(const rocksdb::Slice& key) {
  if (size_t end = StrPrefixEnd(key, 0); end > 0) return end;
  for (size_t i = 0; i < key.size() && i < kMaxTagBytes; ++i) {
    if (key[i] == '/') return StrPrefixEnd(key, i + 1);
  }
  return 0;
}

class RunKeyPrefix : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "taskboard.RunKeyPrefix"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    return rocksdb::Slice(key.data(), RunPrefixEnd(key));
  }
  bool InDomain(const rocksdb::Slice& key) const override { return RunPrefixEnd(key) > 0; }
};

}  // namespace

std::shared_ptr<const rocksdb::SliceTransform> NewRunKeyPrefix() {
  return std::make_shared<RunKeyPrefix>();
}

}  // namespace taskboard::store
