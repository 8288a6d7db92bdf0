#include "worker/tools/mcp/mcp_event_stream.h"

#include <algorithm>

namespace taskboard::worker {
namespace {

// Longer field names and event types are none the stream defines.
constexpr size_t kMaxName = 64;

}  // namespace

void McpEventStream::Feed(absl::string_view bytes) {
  while (!bytes.empty()) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (bytes[0] == '\n') {
        bytes.remove_prefix(1);
        continue;
      }
    }
    const size_t end = bytes.find_first_of("\r\n");
    Take(bytes.substr(0, end));
    if (end == absl::string_view::npos) return;
    skip_lf_ = bytes[end] == '\r';
    bytes.remove_prefix(end + 1);
    EndLine();
  }
}

void McpEventStream::StartField() {
  if (name_ == "data") {
    field_ = Field::kData;
    if (data_lines_++ > 0) data_.Append("\n");
  } else if (name_ == "event") {
    field_ = Field::kEvent;
    event_.clear();
  } else {
    field_ = Field::kIgnored;
  }
  strip_space_ = true;
}

void McpEventStream::Take(absl::string_view part) {
  if (field_ == Field::kUnknown) {
    const size_t colon = part.find(':');
    const absl::string_view name = part.substr(0, colon);
    name_.append(name.data(),
                 std::min(name.size(), kMaxName + 1 - std::min(name_.size(), kMaxName + 1)));
    if (colon == absl::string_view::npos) return;
    StartField();
    part.remove_prefix(colon + 1);
  }
  if (strip_space_ && !part.empty()) {
    strip_space_ = false;
    if (part[0] == ' ') part.remove_prefix(1);
  }
  switch (field_) {
    case Field::kData:
      data_.Append(part);
      break;
    case Field::kEvent:
      event_.append(part.data(),
                    std::min(part.size(), kMaxName + 1 - std::min(event_.size(), kMaxName + 1)));
      break;
    default:
      break;
  }
}

void McpEventStream::EndLine() {
  if (field_ == Field::kUnknown) {
    // A line without a colon: a blank line ends the event; otherwise the
    // whole line names a field with an empty value.
    if (name_.empty()) {
      Dispatch();
    } else {
      StartField();
    }
  }
  field_ = Field::kUnknown;
  name_.clear();
  strip_space_ = false;
}

void McpEventStream::Dispatch() {
  if (data_lines_ > 0 && (event_.empty() || event_ == "message")) {
    data_.Deliver();
    ++delivered_;
  } else {
    data_.Clear();
  }
  data_lines_ = 0;
  event_.clear();
}

}  // namespace taskboard::worker
