#include "common/json_depth.h"

#include <algorithm>
#include <atomic>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace taskboard {
namespace {

std::atomic<int> max_json_depth{kDefaultMaxJsonDepth};

// Keys in error paths are cut here: a path names where, it need not quote a
// hostile megabyte key back.
constexpr size_t kMaxKeyInPath = 40;

bool IsIdentifier(absl::string_view key) {
  if (key.empty() || absl::ascii_isdigit(static_cast<unsigned char>(key[0]))) return false;
  for (char c : key) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

}  // namespace

int MaxJsonDepth() { return max_json_depth.load(std::memory_order_relaxed); }

absl::Status SetMaxJsonDepth(int depth) {
  if (depth < 1 || depth > kMaxJsonDepthCeiling) {
    return absl::InvalidArgumentError(absl::StrCat("--max-json-depth must be between 1 and ",
                                                   kMaxJsonDepthCeiling, " (got ", depth, ")"));
  }
  max_json_depth.store(depth, std::memory_order_relaxed);
  return absl::OkStatus();
}

absl::Status JsonTooDeepError(int limit, absl::string_view path) {
  return absl::InvalidArgumentError(absl::StrCat(
      "JSON nested deeper than the limit of ", limit, " levels at ", path,
      ": flatten the document, or raise --max-json-depth (up to ", kMaxJsonDepthCeiling, ")"));
}

std::string JsonPathStack::Path() const {
  std::string path = "$";
  for (const Frame& frame : frames_) {
    if (frame.array) {
      absl::StrAppend(&path, "[", frame.index, "]");
      continue;
    }
    absl::string_view key = frame.key;
    const bool cut = key.size() > kMaxKeyInPath;
    if (cut) key = key.substr(0, kMaxKeyInPath);
    if (IsIdentifier(key) && !cut) {
      absl::StrAppend(&path, ".", key);
    } else {
      absl::StrAppend(&path, "[\"", absl::CHexEscape(key), cut ? "..." : "", "\"]");
    }
  }
  return path;
}

absl::Status CheckJsonTextDepth(absl::string_view text, int limit) {
  JsonPathStack stack;
  std::string last_string;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    switch (c) {
      case '"': {
        // Skip to the closing quote; a backslash escapes the next byte.
        size_t end = i + 1;
        while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
        last_string = std::string(text.substr(i + 1, std::min(end, text.size()) - i - 1));
        i = end + 1;
        continue;
      }
      case '[':
      case '{':
        if (stack.depth() >= static_cast<size_t>(limit)) {
          return JsonTooDeepError(limit, stack.Path());
        }
        if (c == '[') {
          stack.PushArray();
        } else {
          stack.PushObject();
        }
        break;
      case ']':
      case '}':
        stack.Pop();
        break;
      case ',':
        stack.NextIndex();
        break;
      case ':':
        stack.SetKey(std::move(last_string));
        last_string.clear();
        break;
      default:
        break;
    }
    ++i;
  }
  return absl::OkStatus();
}

}  // namespace taskboard
