#include "scheduler/audit/audit_reader.h"

#include <optional>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "scheduler/store/keys.h"

namespace taskboard::audit {

absl::StatusOr<v1::ListAuditEventsResponse> ReadAuditPage(store::Store& store,
                                                          const AuditQuery& query) {
  namespace keys = store::keys;
  // [start, end) of the scan, before the page token moves the end down.
  std::string start;
  std::string end;
  if (query.tenant.has_value()) {
    start = keys::AuditRecord(*query.tenant, query.since_micros);
    end = query.until_micros != 0 ? keys::AuditRecord(*query.tenant, query.until_micros)
                                  : store::PrefixEnd(keys::AuditRecordsOfTenant(*query.tenant));
  } else {
    start = keys::AuditByTime(query.since_micros, "");
    end = query.until_micros != 0 ? keys::AuditByTime(query.until_micros, "")
                                  : store::PrefixEnd(keys::AuditTimeIndex());
  }
  if (!query.resume_key.empty() && query.resume_key < end) end = query.resume_key;

  v1::ListAuditEventsResponse response;
  absl::Status failed;
  int scanned = 0;
  std::string last_key;
  bool stopped_early = false;
  absl::Status scan = store.ScanReverse(
      store::Column::kMeta, start, end, [&](absl::string_view key, absl::string_view value) {
        if (response.events_size() >= query.page_size || scanned >= kMaxScannedPerPage) {
          stopped_early = true;
          return false;
        }
        ++scanned;
        last_key = std::string(key);
        std::string record;
        if (query.tenant.has_value()) {
          record = std::string(value);
        } else {
          std::optional<keys::AuditKey> index = keys::ParseAuditByTime(key);
          if (!index.has_value()) return true;
          absl::StatusOr<std::optional<std::string>> got =
              store.Get(store::Column::kMeta, keys::AuditRecord(index->tenant, index->micros));
          if (!got.ok()) {
            failed = got.status();
            return false;
          }
          // Swept between the index and the record: gone.
          if (!got->has_value()) return true;
          record = **std::move(got);
        }
        v1::AuditEvent event;
        if (!event.ParseFromString(record)) {
          failed = absl::InternalError(
              absl::StrCat("the audit record at key '", absl::CHexEscape(key), "' does not parse"));
          return false;
        }
        if (Matches(query, event)) *response.add_events() = std::move(event);
        return true;
      });
  if (!scan.ok()) return scan;
  if (!failed.ok()) return failed;
  if (stopped_early) response.set_next_page_token(PageToken(last_key));
  return response;
}

}  // namespace taskboard::audit
