#include "scheduler/triggers/event.h"

#include "absl/strings/ascii.h"

namespace taskboard::triggers {

std::string Event::Header(const std::string& name) const {
  auto it = headers.find(absl::AsciiStrToLower(name));
  return it == headers.end() ? std::string() : it->second;
}

}  // namespace taskboard::triggers
