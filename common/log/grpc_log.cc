#include "common/log/grpc_log.h"

#include "common/log/log.h"
#include "grpc/support/log.h"

namespace taskboard::log {
namespace {

Level LevelOf(gpr_log_severity severity) {
  switch (severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      return Level::kDebug;
    case GPR_LOG_SEVERITY_INFO:
      return Level::kInfo;
    case GPR_LOG_SEVERITY_ERROR:
      return Level::kError;
  }
  return Level::kError;
}

void Forward(gpr_log_func_args* args) {
  Line(LevelOf(args->severity), args->message != nullptr ? args->message : "")
      .With("source", "grpc")
      .With("file", args->file != nullptr ? args->file : "")
      .With("line", args->line);
}

}  // namespace

void RouteGrpcLogs() { gpr_set_log_function(&Forward); }

}  // namespace taskboard::log
