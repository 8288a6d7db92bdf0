#include "scheduler/engine/runs/saved_flows.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/log/log.h"
#include "scheduler/store/flow_key_migration.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

absl::Status FlowNotFound(absl::string_view name, int64_t version) {
  return absl::NotFoundError(
      absl::StrCat("saved flow '", name, "'", version > 0 ? absl::StrCat(" version ", version) : "",
                   " not found; list saved flows with `taskboard flows list`"));
}

// " for tenant 'acme'", or nothing for the empty tenant (no authentication).
std::string ForTenant(const std::string& tenant) {
  return tenant.empty() ? "" : absl::StrCat(" for tenant '", tenant, "'");
}

// One stored version of a name: its number and the bytes it takes.
struct StoredVersion {
  uint64_t version = 0;
  int64_t bytes = 0;
};

// The stored versions of one flow, oldest first.
absl::StatusOr<std::vector<StoredVersion>> VersionsOf(store::Store& store,
                                                      const std::string& tenant,
                                                      absl::string_view name) {
  std::vector<StoredVersion> versions;
  absl::Status scanned = store.ScanPrefix(
      store::Column::kFlows, store::keys::FlowVersions(tenant, name),
      [&](absl::string_view key, absl::string_view value) {
        std::optional<store::keys::FlowKey> parsed = store::keys::ParseFlow(key);
        if (parsed.has_value()) {
          versions.push_back({parsed->version, static_cast<int64_t>(value.size())});
        }
        return true;
      });
  if (!scanned.ok()) return scanned;
  return versions;
}

// The latest stored version of a flow, if any.
absl::StatusOr<std::optional<v1::SavedFlow>> Latest(store::Store& store, const std::string& tenant,
                                                    absl::string_view name) {
  std::string prefix = store::keys::FlowVersions(tenant, name);
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

absl::StatusOr<std::unique_ptr<SavedFlows>> SavedFlows::Create(store::Store* store,
                                                               SavedFlowLimits limits) {
  absl::StatusOr<int64_t> moved = store::MigrateFlowKeys(*store);
  if (!moved.ok()) return moved.status();
  if (*moved > 0) {
    log::Info("saved flows moved to per-tenant keys").With("versions", *moved);
  }
  return std::unique_ptr<SavedFlows>(new SavedFlows(store, limits));
}

absl::StatusOr<SavedFlows::TenantUsage*> SavedFlows::UsageOf(const std::string& tenant) {
  auto known = usage_.find(tenant);
  if (known != usage_.end()) return &known->second;
  TenantUsage usage;
  std::string last_name;
  absl::Status scanned = store_->ScanPrefix(store::Column::kFlows, store::keys::TenantFlows(tenant),
                                            [&](absl::string_view key, absl::string_view value) {
                                              std::optional<store::keys::FlowKey> parsed =
                                                  store::keys::ParseFlow(key);
                                              if (!parsed.has_value()) return true;
                                              // A name's versions are adjacent keys.
                                              if (usage.flows == 0 || parsed->name != last_name) {
                                                ++usage.flows;
                                                last_name = std::move(parsed->name);
                                              }
                                              usage.bytes += static_cast<int64_t>(value.size());
                                              return true;
                                            });
  if (!scanned.ok()) return scanned;
  return &usage_.emplace(tenant, usage).first->second;
}

absl::StatusOr<v1::SavedFlow> SavedFlows::Save(const std::string& tenant, const v1::FlowSpec& spec,
                                               std::string source, int64_t now_ms) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<TenantUsage*> usage = UsageOf(tenant);
  if (!usage.ok()) return usage.status();
  absl::StatusOr<std::vector<StoredVersion>> versions = VersionsOf(*store_, tenant, spec.name());
  if (!versions.ok()) return versions.status();
  const bool new_name = versions->empty();
  if (new_name && (*usage)->flows >= limits_.max_flows_per_tenant) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "cannot save flow '", spec.name(), "': there are ", (*usage)->flows, " saved flows",
        ForTenant(tenant), ", the scheduler's limit per tenant (scheduler flag ",
        saved_flow_flags::kMaxPerTenant,
        "); delete flows you no longer need (taskboard flows delete NAME), or save this as a "
        "new version of an existing flow"));
  }
  v1::SavedFlow flow;
  flow.set_name(spec.name());
  flow.set_version(new_name ? 1 : static_cast<int64_t>(versions->back().version) + 1);
  *flow.mutable_spec() = spec;
  flow.set_source(std::move(source));
  flow.set_created_at_unix_ms(now_ms);
  std::string value = flow.SerializeAsString();

  // The oldest versions that make room for this one.
  const size_t keep = static_cast<size_t>(std::max(1, limits_.max_versions)) - 1;
  const size_t pruned = versions->size() > keep ? versions->size() - keep : 0;
  int64_t bytes = (*usage)->bytes + static_cast<int64_t>(value.size());
  for (size_t i = 0; i < pruned; ++i) bytes -= (*versions)[i].bytes;
  if (bytes > limits_.max_bytes_per_tenant) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot save flow '", spec.name(), "' version ", flow.version(), " (",
                     value.size(), " bytes): the saved flows", ForTenant(tenant), " would take ",
                     bytes, " bytes, over the scheduler's limit of ", limits_.max_bytes_per_tenant,
                     " bytes per tenant (scheduler flag ", saved_flow_flags::kMaxBytesPerTenant,
                     "); delete flows you no longer need (taskboard flows delete NAME)"));
  }
  store::WriteBatch batch;
  for (size_t i = 0; i < pruned; ++i) {
    batch.Delete(store::Column::kFlows,
                 store::keys::Flow(tenant, spec.name(), (*versions)[i].version));
  }
  batch.PutOwned(store::Column::kFlows,
                 store::keys::Flow(tenant, spec.name(), static_cast<uint64_t>(flow.version())),
                 std::move(value));
  absl::Status written = store_->Write(batch);
  if (!written.ok()) return written;
  (*usage)->flows += new_name ? 1 : 0;
  (*usage)->bytes = bytes;
  return flow;
}

absl::StatusOr<v1::SavedFlow> SavedFlows::Get(const std::string& tenant, const std::string& name,
                                              int64_t version) {
  if (version <= 0) {
    absl::StatusOr<std::optional<v1::SavedFlow>> latest = Latest(*reads_, tenant, name);
    if (!latest.ok()) return latest.status();
    if (!latest->has_value()) return FlowNotFound(name, 0);
    return **latest;
  }
  absl::StatusOr<std::optional<std::string>> stored = reads_->Get(
      store::Column::kFlows, store::keys::Flow(tenant, name, static_cast<uint64_t>(version)));
  if (!stored.ok()) return stored.status();
  v1::SavedFlow flow;
  if (!stored->has_value() || !flow.ParseFromString(**stored)) return FlowNotFound(name, version);
  return flow;
}

absl::StatusOr<v1::ListFlowsResponse> SavedFlows::List(const std::string& tenant,
                                                       const v1::ListFlowsRequest& request) {
  int limit = request.page_size() <= 0 ? 100 : std::min(request.page_size(), 1000);
  // Only this tenant's keys. They sort by name length first (length-
  // prefixed), a name's versions oldest first: keep the last value of each
  // name and order by name here; the page token is the last name of the
  // previous page.
  std::map<std::string, std::string> latest;
  absl::Status scanned =
      reads_->ScanPrefix(store::Column::kFlows, store::keys::TenantFlows(tenant),
                         [&](absl::string_view key, absl::string_view value) {
                           std::optional<store::keys::FlowKey> parsed = store::keys::ParseFlow(key);
                           if (parsed.has_value() && parsed->name > request.page_token()) {
                             latest[parsed->name].assign(value.data(), value.size());
                           }
                           return true;
                         });
  if (!scanned.ok()) return scanned;
  v1::ListFlowsResponse response;
  for (const auto& [name, value] : latest) {
    if (response.flows_size() == limit) {
      response.set_next_page_token(response.flows(limit - 1).name());
      break;
    }
    v1::SavedFlow flow;
    if (flow.ParseFromString(value)) *response.add_flows() = std::move(flow);
  }
  return response;
}

absl::StatusOr<int64_t> SavedFlows::Delete(const std::string& tenant, const std::string& name) {
  absl::MutexLock lock(&mu_);
  absl::StatusOr<TenantUsage*> usage = UsageOf(tenant);
  if (!usage.ok()) return usage.status();
  store::WriteBatch batch;
  int64_t count = 0;
  int64_t bytes = 0;
  absl::Status scanned =
      store_->ScanPrefix(store::Column::kFlows, store::keys::FlowVersions(tenant, name),
                         [&](absl::string_view key, absl::string_view value) {
                           batch.Delete(store::Column::kFlows, key);
                           bytes += static_cast<int64_t>(value.size());
                           ++count;
                           return true;
                         });
  if (!scanned.ok()) return scanned;
  if (count == 0) return FlowNotFound(name, 0);
  absl::Status written = store_->Write(batch);
  if (!written.ok()) return written;
  (*usage)->flows -= 1;
  (*usage)->bytes -= bytes;
  return count;
}

}  // namespace taskboard::engine
