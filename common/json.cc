#include "common/json.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/json_depth.h"

namespace taskboard {

absl::StatusOr<Json> ParseJson(absl::string_view text) {
  if (absl::Status depth = CheckJsonTextDepth(text, MaxJsonDepth()); !depth.ok()) return depth;
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {  // parse_error, or out_of_range for 1e999
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: ", e.what()));
  }
}

std::optional<Json> TryParseJson(absl::string_view text) {
  // Every JSON text starts, after whitespace, with one of these: prose fails
  // here without the parser, which builds an error message even when it
  // does not throw.
  absl::ConsumePrefix(&text, "\xEF\xBB\xBF");  // a byte order mark, which the parser skips
  const size_t first = text.find_first_not_of(" \t\n\r");
  if (first == absl::string_view::npos ||
      absl::string_view("{[\"-0123456789tfn").find(text[first]) == absl::string_view::npos) {
    return std::nullopt;
  }
  if (!CheckJsonTextDepth(text, MaxJsonDepth()).ok()) return std::nullopt;
  // Without exceptions the parser reports a syntax error or an out-of-range
  // number (1e999) as a discarded value, which no JSON text parses to.
  Json json = Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  return json;
}

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string DumpJsonPretty(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace taskboard
