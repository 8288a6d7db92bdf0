#include "worker/tools/mcp/mcp_message_buffer.h"

#include <algorithm>

namespace taskboard::worker {

void McpMessageBuffer::Append(absl::string_view part) {
  constexpr size_t kKeep = McpInbox::kOversizedKeep;
  if (!oversized_ && text_.size() + part.size() > inbox_->options().max_message_bytes) {
    oversized_ = true;
    head_ = text_.substr(0, kKeep);
    if (head_.size() < kKeep) {
      const absl::string_view more = part.substr(0, kKeep - head_.size());
      head_.append(more.data(), more.size());
    }
    tail_.clear();
    std::string().swap(text_);
  }
  if (!oversized_) {
    text_.append(part.data(), part.size());
    return;
  }
  tail_.append(part.data(), part.size());
  if (tail_.size() > kKeep) tail_.erase(0, tail_.size() - kKeep);
}

void McpMessageBuffer::Deliver() {
  if (oversized_) {
    inbox_->OnOversized(head_, tail_);
    oversized_ = false;
  } else {
    inbox_->OnMessage(text_);
  }
  text_.clear();
}

void McpMessageBuffer::Clear() {
  oversized_ = false;
  text_.clear();
}

}  // namespace taskboard::worker
