#include "common/log/format.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace taskboard::log {
namespace {

constexpr absl::string_view kFixedKeys[] = {"ts", "level", "msg", "component"};

bool IsFixedKey(absl::string_view key) {
  for (absl::string_view fixed : kFixedKeys) {
    if (key == fixed) return true;
  }
  return false;
}

// A text value stays bare while it reads unambiguously (no spaces, quotes,
// '=' or control characters); otherwise it is quoted the JSON way.
bool NeedsQuotes(absl::string_view text) {
  if (text.empty()) return true;
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '"' || c == '=' || c == '\\') return true;
  }
  return false;
}

std::string FormatJson(const Record& record) {
  Json line = Json::object();
  line["ts"] = FormatTimestamp(record.time);
  line["level"] = std::string(LevelName(record.level));
  line["msg"] = record.msg;
  if (!record.component.empty()) line["component"] = record.component;
  if (record.fields.is_object()) {
    for (const auto& [key, value] : record.fields.items()) {
      if (!IsFixedKey(key)) line[key] = value;
    }
  }
  return DumpJson(line);
}

std::string FormatText(const Record& record) {
  std::string line = absl::StrCat(FormatTimestamp(record.time), " ", LevelName(record.level));
  // Pads the level to "debug"'s width so messages line up.
  line.append(6 - LevelName(record.level).size(), ' ');
  if (!record.component.empty()) absl::StrAppend(&line, record.component, ": ");
  // The message itself on one line: newlines would start a fake record.
  std::string msg = record.msg;
  for (char& c : msg) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  line.append(msg);
  if (record.fields.is_object()) {
    for (const auto& [key, value] : record.fields.items()) {
      if (IsFixedKey(key)) continue;
      absl::StrAppend(&line, " ", key, "=");
      if (value.is_string() && !NeedsQuotes(value.get_ref<const std::string&>())) {
        line.append(value.get_ref<const std::string&>());
      } else {
        line.append(DumpJson(value));
      }
    }
  }
  return line;
}

}  // namespace

absl::StatusOr<Format> ParseFormat(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "json") return Format::kJson;
  if (lower == "text") return Format::kText;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log format '", name, "'; use json or text"));
}

std::string FormatTimestamp(absl::Time time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", time, absl::UTCTimeZone());
}

std::string FormatLine(const Record& record, Format format) {
  return format == Format::kText ? FormatText(record) : FormatJson(record);
}

}  // namespace taskboard::log
