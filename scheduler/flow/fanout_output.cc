#include "scheduler/flow/fanout_output.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "scheduler/flow/json_extract.h"

namespace taskboard::flow {

std::string MergeFanOutText(const std::vector<FanOutItem>& items) {
  std::string merged;
  for (size_t i = 0; i < items.size(); ++i) {
    const FanOutItem& item = items[i];
    if (i > 0) absl::StrAppend(&merged, "\n\n---\n\n");
    absl::StrAppend(&merged, "### [", i + 1, "/", items.size(), "] ", item.agent,
                    item.failed ? " (failed)" : "", "\n\n", item.output);
  }
  return merged;
}

Json MergeFanOutJson(const std::vector<FanOutItem>& items) {
  Json merged = Json::array();
  for (const FanOutItem& item : items) {
    if (item.failed) {
      merged.push_back(nullptr);
    } else if (std::optional<Json> json = ExtractJson(item.output)) {
      merged.push_back(*std::move(json));
    } else {
      merged.push_back(item.output);
    }
  }
  return merged;
}

}  // namespace taskboard::flow
