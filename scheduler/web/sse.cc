#include "scheduler/web/sse.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace taskboard::web {

std::string SseFrame(absl::string_view event, std::optional<int64_t> id, absl::string_view data) {
  std::string frame = absl::StrCat("event: ", event, "\n");
  if (id.has_value()) absl::StrAppend(&frame, "id: ", *id, "\n");
  for (absl::string_view line : absl::StrSplit(data, absl::ByAnyChar("\r\n"))) {
    absl::StrAppend(&frame, "data: ", line, "\n");
  }
  frame += "\n";
  return frame;
}

int64_t ParseLastEventId(absl::string_view header) {
  int64_t id = 0;
  if (!absl::SimpleAtoi(header, &id) || id < 0) return 0;
  return id;
}

}  // namespace taskboard::web
