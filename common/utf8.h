#ifndef TASKBOARD_COMMON_UTF8_H_
#define TASKBOARD_COMMON_UTF8_H_

// UTF-8 validation. Protobuf string fields must hold valid UTF-8 (a message
// with invalid bytes cannot be parsed back), so text from outside (flow
// files, agent output) is checked where it enters.

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace taskboard {

// The byte offset of the first invalid UTF-8 sequence, or nullopt when
// `text` is valid (overlong forms, surrogates and code points above U+10FFFF
// are invalid).
std::optional<size_t> FindInvalidUtf8(absl::string_view text);

// `text` with every invalid byte replaced by U+FFFD, for messages that quote
// user input (a parser's "last read" byte may be half a character).
std::string ToValidUtf8(absl::string_view text);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_UTF8_H_
