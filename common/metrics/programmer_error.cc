#include "common/metrics/programmer_error.h"

#include <cstdio>
#include <cstdlib>

namespace taskboard::metrics {

void DieOnProgrammerError(absl::string_view message) {
  std::fprintf(stderr, "taskboard metrics: %.*s\n", static_cast<int>(message.size()),
               message.data());
  std::fflush(stderr);
  std::abort();
}

}  // namespace taskboard::metrics
