#include "tools/cli/display_format.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace taskboard::cli {

std::string FormatElapsed(absl::Duration duration) {
  const int64_t ms = std::max<int64_t>(0, absl::ToInt64Milliseconds(duration));
  if (ms < 1000) return absl::StrCat(ms, "ms");
  if (ms < 60'000) return absl::StrFormat("%.1fs", static_cast<double>(ms / 100) / 10);
  const int64_t seconds = ms / 1000;
  if (seconds < 3600) return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
  return absl::StrFormat("%dh%02dm", seconds / 3600, seconds / 60 % 60);
}

std::string FormatAge(absl::Duration age) {
  const int64_t seconds = std::max<int64_t>(0, absl::ToInt64Seconds(age));
  if (seconds < 60) return absl::StrCat(seconds, "s");
  if (seconds < 3600) return absl::StrCat(seconds / 60, "m");
  if (seconds < 86400) return absl::StrCat(seconds / 3600, "h");
  return absl::StrCat(seconds / 86400, "d");
}

std::string FormatTokens(int64_t tokens) {
  const double value = static_cast<double>(tokens);
  if (tokens < 1000) return absl::StrCat(tokens);
  if (tokens < 10'000) return absl::StrFormat("%.1fk", std::floor(value / 100) / 10);
  if (tokens < 1'000'000) return absl::StrFormat("%dk", tokens / 1000);
  if (tokens < 10'000'000) return absl::StrFormat("%.1fM", std::floor(value / 100'000) / 10);
  return absl::StrFormat("%dM", tokens / 1'000'000);
}

std::string FormatCost(double cost_usd) {
  if (cost_usd < 0.01) return absl::StrFormat("$%.4f", cost_usd);
  if (cost_usd < 1) return absl::StrFormat("$%.3f", cost_usd);
  return absl::StrFormat("$%.2f", cost_usd);
}

std::string FormatUsage(const v1::Usage& usage) {
  std::vector<std::string> parts;
  if (usage.input_tokens() > 0) parts.push_back("↑" + FormatTokens(usage.input_tokens()));
  if (usage.output_tokens() > 0) parts.push_back("↓" + FormatTokens(usage.output_tokens()));
  if (usage.cost_usd() > 0) parts.push_back(FormatCost(usage.cost_usd()));
  return absl::StrJoin(parts, " ");
}

std::string OneLine(absl::string_view text) {
  std::string line;
  bool space = false;
  for (char c : absl::StripAsciiWhitespace(text)) {
    if (absl::ascii_isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  return line;
}

std::string ProgressBar(int done, int total, int width) {
  const int filled = total <= 0 ? 0 : std::clamp(done * width / total, 0, width);
  std::string bar = "[";
  for (int i = 0; i < width; ++i) bar += i < filled ? "█" : "░";
  absl::StrAppend(&bar, "] ", done, "/", total);
  return bar;
}

std::optional<absl::Time> TimeFromProto(const google::protobuf::Timestamp& timestamp) {
  if (timestamp.seconds() == 0 && timestamp.nanos() == 0) return std::nullopt;
  return absl::FromUnixSeconds(timestamp.seconds()) + absl::Nanoseconds(timestamp.nanos());
}

std::optional<absl::Duration> Elapsed(const google::protobuf::Timestamp& start,
                                      const google::protobuf::Timestamp& end, absl::Time now) {
  const std::optional<absl::Time> started = TimeFromProto(start);
  if (!started) return std::nullopt;
  return TimeFromProto(end).value_or(now) - *started;
}

}  // namespace taskboard::cli
