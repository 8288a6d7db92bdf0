#ifndef TASKBOARD_COMMON_CANONICAL_JSON_H_
#define TASKBOARD_COMMON_CANONICAL_JSON_H_

// Canonical JSON text: the byte-stable form used for tool-cache keys and
// resume input hashes, so that equal values always hash equally.
//
// Rules (docs/semantics.md#keys-and-scopes): object keys sorted (by UTF-8 bytes) at every depth,
// no whitespace, numbers in shortest round-trip form with integral floats
// written as integers (1.0 -> 1, so `{"n": 1}` and `{"n": 1.0}` match).

#include <string>

#include "absl/strings/string_view.h"
#include "common/json.h"

namespace taskboard {

std::string CanonicalJson(const Json& value);

// Appends `text` as canonical JSON writes a string (quoted and escaped, invalid
// UTF-8 replaced), for callers that write a fixed document's text directly.
void AppendCanonicalJsonString(absl::string_view text, std::string& out);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_CANONICAL_JSON_H_
