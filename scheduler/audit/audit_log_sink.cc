#include "scheduler/audit/audit_log_sink.h"

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace taskboard::audit {

absl::StatusOr<std::unique_ptr<AuditLogSink>> AuditLogSink::Open(absl::string_view destination) {
  if (destination == "off") return nullptr;
  if (destination.empty()) {
    return absl::InvalidArgumentError("--audit-log is empty; give off, stderr or a file path");
  }
  if (destination == "stderr")
    return std::unique_ptr<AuditLogSink>(new AuditLogSink(stderr, false));
  const std::string path(destination);
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot open the audit log '", path,
                                               "' for appending: ", std::strerror(errno),
                                               " (check --audit-log and the directory)"));
  }
  return std::unique_ptr<AuditLogSink>(new AuditLogSink(file, true));
}

AuditLogSink::~AuditLogSink() {
  if (owned_) std::fclose(file_);
}

std::string AuditLogSink::Line(const v1::AuditEvent& event) {
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(event, &json).ok() || json.size() < 2) {
    json = "{}";
  }
  // {"type":"audit", then the event's own fields.
  return json == "{}" ? std::string(R"({"type":"audit"})")
                      : absl::StrCat(R"({"type":"audit",)", json.substr(1));
}

void AuditLogSink::Write(const v1::AuditEvent& event) {
  const std::string line = absl::StrCat(Line(event), "\n");
  absl::MutexLock lock(&mu_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace taskboard::audit
