#include "tools/cli/flow_error_report.h"

namespace taskboard::cli {

void PrintFlowErrors(absl::string_view subject, absl::string_view what,
                     const v1::FlowErrors& errors, std::ostream& err) {
  err << subject << ": " << what << " (" << errors.errors_size()
      << (errors.errors_size() == 1 ? " error" : " errors") << ")\n";
  for (const v1::FlowError& error : errors.errors()) {
    err << "  " << (error.path().empty() ? "(flow)" : error.path()) << ": " << error.message()
        << "\n";
  }
}

}  // namespace taskboard::cli
