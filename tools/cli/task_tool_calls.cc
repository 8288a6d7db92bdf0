#include "tools/cli/task_tool_calls.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "tools/cli/ansi.h"
#include "tools/cli/display_format.h"
#include "tools/cli/display_width.h"

namespace taskboard::cli {
namespace {

// Arguments are canonical JSON on one line, but a tool that takes a whole
// text (a write, a patch) would push the marks off any screen.
constexpr int kMaxArgsColumns = 100;

std::string Plural(int64_t n, absl::string_view one, absl::string_view many) {
  return absl::StrCat(n, " ", n == 1 ? one : many);
}

std::string CountsLine(const v1::GetTaskResponse& task) {
  int cached = 0, failed = 0;
  for (const v1::Observation& call : task.tool_calls()) {
    cached += call.cached() ? 1 : 0;
    failed += call.error().empty() ? 0 : 1;
  }
  if (task.tool_calls().empty()) return "no tool calls";
  std::vector<std::string> parts = {Plural(task.tool_calls_size(), "call", "calls")};
  if (cached > 0) parts.push_back(absl::StrCat(cached, " cached"));
  if (failed > 0) parts.push_back(absl::StrCat(failed, " failed"));
  return absl::StrJoin(parts, ", ");
}

// "summarize[0]", or "RUN/summarize[0]" for a task of another run of the
// request (a parent or child run).
std::string SourceName(const v1::Observation& call) {
  const v1::TaskRef& source = call.source_task();
  if (source.run_id().empty() || source.run_id() == call.run_id()) return source.task_id();
  return absl::StrCat(source.run_id(), "/", source.task_id());
}

std::string CallLine(const v1::Observation& call, const ToolCallsOptions& options) {
  const bool failed = !call.error().empty();
  std::string line = absl::StrCat(
      "  ", Paint(failed ? "✗" : "✓", failed ? Style::kRed : Style::kGreen, options.color), " ",
      call.tool_name(), " ", FitToWidth(OneLine(call.args_json()), kMaxArgsColumns), "  ");
  if (call.cached()) {
    std::string mark =
        absl::StrCat("(cached ", FormatElapsed(absl::Milliseconds(call.cache_age_ms())), " old");
    if (!call.source_task().task_id().empty()) absl::StrAppend(&mark, ", from ", SourceName(call));
    absl::StrAppend(&line, Paint(absl::StrCat(mark, ")"), Style::kCyan, options.color));
  } else {
    absl::StrAppend(&line, FormatElapsed(absl::Milliseconds(call.duration_ms())));
  }
  if (failed) {
    absl::StrAppend(
        &line, "  ",
        Paint(absl::StrCat("error: ", OneLine(call.error())), Style::kRed, options.color));
  }
  return FitToWidth(line, options.width);
}

}  // namespace

std::string FormatPriorWorkMeta(const v1::PriorWork& prior_work) {
  const v1::PriorWorkMeta& meta = prior_work.meta();
  if (meta.policy().empty()) return "";
  std::string text = absl::StrCat(meta.policy(), ", ", meta.selected(), " of ",
                                  Plural(meta.available(), "observation", "observations"), ", ~",
                                  FormatTokens(meta.tokens_approx()), " tokens");
  if (!prior_work.narrative().empty()) absl::StrAppend(&text, ", with narrative");
  if (!meta.fallback_reason().empty()) {
    absl::StrAppend(&text, "; fallback: ", OneLine(meta.fallback_reason()));
  }
  return text;
}

std::string RenderTaskToolCalls(const v1::GetTaskResponse& task, const ToolCallsOptions& options) {
  std::string text = absl::StrCat(
      FitToWidth(absl::StrCat(Paint(task.task().task_id(), Style::kBold, options.color), "  ",
                              CountsLine(task)),
                 options.width),
      "\n");
  if (std::string meta = FormatPriorWorkMeta(task.prior_work()); !meta.empty()) {
    absl::StrAppend(&text, FitToWidth(absl::StrCat("  prior work: ", meta), options.width), "\n");
  }
  const int calls = task.tool_calls_size();
  const int listed = options.max_calls > 0 ? std::min(calls, options.max_calls) : calls;
  for (int i = 0; i < listed; ++i) {
    absl::StrAppend(&text, CallLine(task.tool_calls(i), options), "\n");
  }
  if (listed < calls) {
    absl::StrAppend(
        &text,
        FitToWidth(absl::StrCat("  … ", Plural(calls - listed, "more call", "more calls"),
                                ": taskboard show ", task.task().run_id(), " --task ",
                                task.task().task_id()),
                   options.width),
        "\n");
  }
  return text;
}

}  // namespace taskboard::cli
