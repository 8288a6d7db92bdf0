#include "scheduler/engine/saved_flows.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

absl::Status FlowNotFound(absl::string_view name, int64_t version) {
  return absl::NotFoundError(
      absl::StrCat("saved flow '", name, "'", version > 0 ? absl::StrCat(" version ", version) : "",
                   " not found; list saved flows with `taskboard flows list`"));
}

// The name a tenant's flow is stored under: `tenant/name` (flow names have
// no '/'), or the name alone for the empty tenant.
std::string StoredName(const std::string& tenant, absl::string_view name) {
  return tenant.empty() ? std::string(name) : absl::StrCat(tenant, "/", name);
}

// Whether the flow stored under `stored_name` is one of `tenant`'s.
bool OwnedBy(const std::string& tenant, absl::string_view stored_name) {
  const size_t slash = stored_name.rfind('/');
  const absl::string_view owner =
      slash == absl::string_view::npos ? absl::string_view() : stored_name.substr(0, slash);
  return owner == tenant;
}

// The latest stored version of `stored_name`, if any.
absl::StatusOr<std::optional<v1::SavedFlow>> Latest(store::Store& store,
                                                    const std::string& stored_name) {
  std::string prefix = store::keys::FlowVersions(stored_name);
  std::optional<v1::SavedFlow> latest;
  absl::Status scanned =
      store.ScanReverse(store::Column::kFlows, prefix, store::PrefixEnd(prefix),
                        [&](absl::string_view, absl::string_view value) {
                          v1::SavedFlow flow;
                          if (flow.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
                            latest = std::move(flow);
                          }
                          return false;
                        });
  if (!scanned.ok()) return scanned;
  return latest;
}

}  // namespace

absl::StatusOr<v1::SavedFlow> SavedFlows::Save(const std::string& tenant, const v1::FlowSpec& spec,
                                               std::string source, int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  const std::string stored_name = StoredName(tenant, spec.name());
  absl::StatusOr<std::optional<v1::SavedFlow>> latest = Latest(*store_, stored_name);
  if (!latest.ok()) return latest.status();
  v1::SavedFlow flow;
  flow.set_name(spec.name());
  flow.set_version(latest->has_value() ? (*latest)->version() + 1 : 1);
  *flow.mutable_spec() = spec;
  flow.set_source(std::move(source));
  flow.set_created_at_unix_ms(now_ms);
  store::WriteBatch batch;
  batch.Put(store::Column::kFlows,
            store::keys::Flow(stored_name, static_cast<uint64_t>(flow.version())),
            flow.SerializeAsString());
  absl::Status written = store_->Write(batch);
  if (!written.ok()) return written;
  return flow;
}

absl::StatusOr<v1::SavedFlow> SavedFlows::Get(const std::string& tenant, const std::string& name,
                                              int64_t version) {
  const std::string stored_name = StoredName(tenant, name);
  if (version <= 0) {
    absl::StatusOr<std::optional<v1::SavedFlow>> latest = Latest(*store_, stored_name);
    if (!latest.ok()) return latest.status();
    if (!latest->has_value()) return FlowNotFound(name, 0);
    return **latest;
  }
  absl::StatusOr<std::optional<std::string>> stored = store_->Get(
      store::Column::kFlows, store::keys::Flow(stored_name, static_cast<uint64_t>(version)));
  if (!stored.ok()) return stored.status();
  v1::SavedFlow flow;
  if (!stored->has_value() || !flow.ParseFromString(**stored)) return FlowNotFound(name, version);
  return flow;
}

absl::StatusOr<v1::ListFlowsResponse> SavedFlows::List(const std::string& tenant,
                                                       const v1::ListFlowsRequest& request) {
  int limit = request.page_size() <= 0 ? 100 : std::min(request.page_size(), 1000);
  // Keys sort by name length first (length-prefixed), so collect the latest
  // version of each name (its last key) and order by name here; the page
  // token is the last name of the previous page.
  std::map<std::string, v1::SavedFlow> latest;
  absl::Status scanned = store_->Scan(
      store::Column::kFlows, "", "", [&](absl::string_view key, absl::string_view value) {
        std::optional<store::keys::FlowKey> parsed = store::keys::ParseFlow(key);
        if (!parsed.has_value() || !OwnedBy(tenant, parsed->name)) return true;
        v1::SavedFlow flow;
        if (flow.ParseFromArray(value.data(), static_cast<int>(value.size())) &&
            flow.name() > request.page_token()) {
          std::string name = flow.name();
          latest[name] = std::move(flow);
        }
        return true;
      });
  if (!scanned.ok()) return scanned;
  v1::ListFlowsResponse response;
  for (auto& [name, flow] : latest) {
    if (response.flows_size() == limit) {
      response.set_next_page_token(response.flows(limit - 1).name());
      break;
    }
    *response.add_flows() = std::move(flow);
  }
  return response;
}

absl::StatusOr<int64_t> SavedFlows::Delete(const std::string& tenant, const std::string& name) {
  absl::MutexLock lock(&mu_);
  std::string prefix = store::keys::FlowVersions(StoredName(tenant, name));
  store::WriteBatch batch;
  int64_t count = 0;
  absl::Status scanned = store_->ScanPrefix(store::Column::kFlows, prefix,
                                            [&](absl::string_view key, absl::string_view) {
                                              batch.Delete(store::Column::kFlows, key);
                                              ++count;
                                              return true;
                                            });
  if (!scanned.ok()) return scanned;
  if (count == 0) return FlowNotFound(name, 0);
  absl::Status written = store_->Write(batch);
  if (!written.ok()) return written;
  return count;
}

}  // namespace taskboard::engine
