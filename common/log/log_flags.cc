#include "common/log/log_flags.h"

#include "absl/strings/str_cat.h"
#include "common/log/format.h"
#include "common/log/level.h"

namespace taskboard::log {
namespace {

// A CLI11 validator from one of our parsers: the error names the bad value,
// the accepted ones and, since the value may come from the environment
// rather than the command line, the variable too.
template <typename Parse>
CLI::Validator ValidatorOf(Parse parse, std::string description, absl::string_view env) {
  return CLI::Validator(
      [parse, env = std::string(env)](std::string& value) -> std::string {
        auto parsed = parse(value);
        if (parsed.ok()) return std::string();
        return absl::StrCat(parsed.status().message(), " (set by the flag or by ", env, ")");
      },
      std::move(description));
}

}  // namespace

void AddLogFlags(CLI::App& app, LogFlags* flags) {
  app.add_option("--log-level", flags->level,
                 "Lowest level logged: debug (adds one line per task), info, warn, error, fatal")
      ->envname("TASKBOARD_LOG_LEVEL")
      ->check(ValidatorOf(ParseLevel, "LEVEL", "TASKBOARD_LOG_LEVEL"))
      ->capture_default_str();
  app.add_option("--log-format", flags->format,
                 "json: one JSON object per line (for log collectors); text: for people")
      ->envname("TASKBOARD_LOG_FORMAT")
      ->check(ValidatorOf(ParseFormat, "FORMAT", "TASKBOARD_LOG_FORMAT"))
      ->capture_default_str();
}

absl::Status ConfigureFromFlags(const LogFlags& flags, absl::string_view component) {
  absl::StatusOr<Level> level = ParseLevel(flags.level);
  if (!level.ok()) return level.status();
  absl::StatusOr<Format> format = ParseFormat(flags.format);
  if (!format.ok()) return format.status();
  Configure({*level, *format, std::string(component)});
  return absl::OkStatus();
}

}  // namespace taskboard::log
