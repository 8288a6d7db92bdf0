#include "scheduler/ha/log_position.h"

#include "absl/strings/str_cat.h"

namespace taskboard::ha {
namespace {

void AppendBigEndian(uint64_t value, std::string& out) {
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(value >> shift));
}

uint64_t ReadBigEndian(absl::string_view bytes) {
  uint64_t value = 0;
  for (char byte : bytes) value = (value << 8) | static_cast<uint8_t>(byte);
  return value;
}

}  // namespace

std::string EncodeLogPosition(const LogPosition& position) {
  std::string bytes;
  bytes.reserve(16);
  AppendBigEndian(position.epoch, bytes);
  AppendBigEndian(position.index, bytes);
  return bytes;
}

absl::StatusOr<LogPosition> DecodeLogPosition(absl::string_view bytes) {
  if (bytes.size() != 16) {
    return absl::DataLossError(
        absl::StrCat("replication position: want 16 bytes, found ", bytes.size()));
  }
  return LogPosition{ReadBigEndian(bytes.substr(0, 8)), ReadBigEndian(bytes.substr(8))};
}

}  // namespace taskboard::ha
