#include "scheduler/audit/audit_query.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "scheduler/store/keys.h"

namespace taskboard::audit {
namespace {

uint64_t MicrosOf(const google::protobuf::Timestamp& time) {
  const int64_t micros = time.seconds() * 1000000 + time.nanos() / 1000;
  return micros < 0 ? 0 : static_cast<uint64_t>(micros);
}

absl::Status BadToken() {
  return absl::InvalidArgumentError(
      "page_token is not one ListAuditEvents returned for these filters; start again without "
      "it");
}

}  // namespace

std::string PageToken(absl::string_view key) { return absl::WebSafeBase64Escape(key); }

std::optional<std::string> KeyOfPageToken(absl::string_view token) {
  std::string key;
  if (!absl::WebSafeBase64Unescape(token, &key)) return std::nullopt;
  return key;
}

absl::StatusOr<AuditQuery> QueryOf(const v1::ListAuditEventsRequest& request,
                                   std::optional<std::string> tenant) {
  AuditQuery query;
  query.tenant = std::move(tenant);
  query.actor = request.actor();
  query.method = request.method();
  query.target = request.target();
  if (request.has_since()) query.since_micros = MicrosOf(request.since());
  if (request.has_until()) query.until_micros = MicrosOf(request.until());
  if (query.until_micros != 0 && query.until_micros < query.since_micros) {
    return absl::InvalidArgumentError("until is before since; swap them or leave one out");
  }
  if (request.page_size() < 0 || request.page_size() > kMaxPageSize) {
    return absl::InvalidArgumentError(absl::StrCat("page_size must be between 0 (the default, ",
                                                   kDefaultPageSize, ") and ", kMaxPageSize,
                                                   "; got ", request.page_size()));
  }
  if (request.page_size() > 0) query.page_size = request.page_size();
  if (!request.page_token().empty()) {
    std::optional<std::string> key = KeyOfPageToken(request.page_token());
    if (!key.has_value()) return BadToken();
    // A tenant's page continues in its records; every tenant's in the index.
    if (query.tenant.has_value()) {
      std::optional<store::keys::AuditKey> parsed = store::keys::ParseAuditRecord(*key);
      if (!parsed.has_value() || parsed->tenant != *query.tenant) return BadToken();
    } else if (!store::keys::ParseAuditByTime(*key).has_value()) {
      return BadToken();
    }
    query.resume_key = *std::move(key);
  }
  return query;
}

bool Matches(const AuditQuery& query, const v1::AuditEvent& event) {
  if (!query.actor.empty() && event.actor() != query.actor) return false;
  if (!query.target.empty() && event.target() != query.target) return false;
  if (!query.method.empty() && event.method() != query.method) {
    const size_t dot = event.method().find('.');
    if (dot == std::string::npos ||
        absl::string_view(event.method()).substr(dot + 1) != query.method) {
      return false;
    }
  }
  return true;
}

}  // namespace taskboard::audit
