#include "scheduler/web/console_config.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace taskboard::web {

absl::Status CheckTraceUrlTemplate(absl::string_view url_template) {
  if (url_template.empty()) return absl::OkStatus();
  // The console puts it in an <a href>: a javascript: or data: URL there
  // would run in the console's origin, with the signed-in token at hand.
  const bool web_url = absl::StartsWithIgnoreCase(url_template, "https://") ||
                       absl::StartsWithIgnoreCase(url_template, "http://");
  if (!web_url || !absl::StrContains(url_template, "{trace_id}")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--trace-url-template '", url_template,
        "' must be an http:// or https:// URL with {trace_id} where the run's trace id goes, "
        "e.g. 'https://tempo.example/trace/{trace_id}'"));
  }
  return absl::OkStatus();
}

std::string ConsoleConfigJson(const ConsoleOptions& options) {
  return nlohmann::json{{"traceUrlTemplate", options.trace_url_template}}.dump();
}

}  // namespace taskboard::web
