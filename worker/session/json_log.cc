#include "worker/session/json_log.h"

#include <cstdio>
#include <string>

namespace taskboard::worker {

void LogJson(absl::string_view level, absl::string_view msg, const Json& fields) {
  Json line = {{"level", std::string(level)}, {"msg", std::string(msg)}};
  if (fields.is_object()) {
    for (const auto& [key, value] : fields.items()) line[key] = value;
  }
  std::string text = DumpJson(line);
  text.push_back('\n');
  // One fwrite per line: stdio locks the stream, so lines stay whole.
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace taskboard::worker
