#include "worker/session/output_coalescer.h"

#include "common/utf8.h"

namespace taskboard::worker {

size_t CompleteUtf8Prefix(absl::string_view text) {
  // Find the lead byte of the last sequence within its longest possible
  // length (4 bytes), and whether all of its continuation bytes arrived.
  const size_t size = text.size();
  for (size_t back = 1; back <= 4 && back <= size; ++back) {
    const unsigned char byte = static_cast<unsigned char>(text[size - back]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte
    size_t needed = 1;
    if ((byte & 0xE0) == 0xC0) {
      needed = 2;
    } else if ((byte & 0xF0) == 0xE0) {
      needed = 3;
    } else if ((byte & 0xF8) == 0xF0) {
      needed = 4;
    }
    return needed > back ? size - back : size;
  }
  return size;
}

absl::optional<std::string> OutputCoalescer::Take(absl::Time now) {
  if (pending_.empty() || now < last_sent_ + interval_) return absl::nullopt;
  const size_t complete = CompleteUtf8Prefix(pending_);
  if (complete == 0) return absl::nullopt;
  std::string text = ToValidUtf8(absl::string_view(pending_).substr(0, complete));
  pending_.erase(0, complete);
  last_sent_ = now;
  return text;
}

absl::optional<std::string> OutputCoalescer::TakeAll() {
  if (pending_.empty()) return absl::nullopt;
  std::string text = ToValidUtf8(pending_);
  pending_.clear();
  return text;
}

}  // namespace taskboard::worker
