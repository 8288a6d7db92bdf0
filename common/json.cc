#include "common/json.h"

#include "absl/strings/str_cat.h"
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

std::string DumpJson(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string DumpJsonPretty(const Json& value) {
  return value.dump(2, ' ', false, Json::error_handler_t::replace);
}

}  // namespace taskboard
