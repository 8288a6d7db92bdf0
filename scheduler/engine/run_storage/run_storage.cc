#include "scheduler/engine/run_storage/run_storage.h"

#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/utf8.h"
#include "scheduler/store/keys.h"

namespace taskboard::engine {
namespace {

constexpr absl::string_view kStorage = "storage";
constexpr absl::string_view kContext = "context";

absl::Status CheckKey(absl::string_view key) {
  if (key.empty())
    return absl::InvalidArgumentError("the key is empty: name the value to read or write");
  if (static_cast<int64_t>(key.size()) > kRunStorageMaxKeyBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the key is ", key.size(), " bytes long; keys may have at most ", kRunStorageMaxKeyBytes));
  }
  if (FindInvalidUtf8(key).has_value()) {
    return absl::InvalidArgumentError("the key is not valid UTF-8");
  }
  for (char c : key) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("the key '", ToValidUtf8(key), "' holds a control character"));
    }
  }
  return absl::OkStatus();
}

int64_t EntryBytes(absl::string_view key, absl::string_view value) {
  return static_cast<int64_t>(key.size() + value.size());
}

}  // namespace

absl::string_view RunStorageOpName(RunStorageOp op) {
  switch (op) {
    case RunStorageOp::kGet:
      return "get";
    case RunStorageOp::kSet:
      return "set";
    case RunStorageOp::kDelete:
      return "delete";
    case RunStorageOp::kList:
      return "list";
  }
  return "?";
}

absl::StatusOr<int64_t*> RunStorage::LoadTenant(const std::string& tenant) {
  if (auto it = tenant_bytes_.find(tenant); it != tenant_bytes_.end()) return &it->second;
  int64_t bytes = 0;
  absl::Status scanned = store_->ScanPrefix(
      store::Column::kMeta, store::keys::RunStateOfTenant(tenant),
      [&bytes](absl::string_view key, absl::string_view value) {
        if (std::optional<store::keys::RunStateKey> parsed = store::keys::ParseRunStateEntry(key)) {
          bytes += EntryBytes(parsed->key, value);
        }
        return true;
      });
  if (!scanned.ok()) return scanned;
  return &tenant_bytes_.emplace(tenant, bytes).first->second;
}

absl::StatusOr<RunStorage::RunMap*> RunStorage::LoadRun(const std::string& tenant,
                                                        const std::string& root_run_id) {
  const std::string prefix = store::keys::RunStateOfRun(tenant, root_run_id);
  if (auto it = runs_.find(prefix); it != runs_.end()) return &it->second;
  RunMap map;
  map.root_run_id = root_run_id;
  absl::Status scanned = store_->ScanPrefix(
      store::Column::kMeta, prefix, [&map](absl::string_view key, absl::string_view value) {
        std::optional<store::keys::RunStateKey> parsed = store::keys::ParseRunStateEntry(key);
        if (!parsed.has_value()) return true;
        ++map.keys;
        map.bytes += EntryBytes(parsed->key, value);
        map.spaces[parsed->space][parsed->key] = std::string(value);
        return true;
      });
  if (!scanned.ok()) return scanned;
  return &runs_.emplace(prefix, std::move(map)).first->second;
}

absl::StatusOr<RunStorageAnswer> RunStorage::Apply(const RunStorageCall& call,
                                                   store::WriteBatch& writes) {
  const absl::string_view space = call.space.empty() ? kStorage : absl::string_view(call.space);
  if (space != kStorage && space != kContext) {
    return absl::InvalidArgumentError(absl::StrCat("there is no space '", ToValidUtf8(space),
                                                   "': use \"storage\" or \"context\""));
  }
  if (call.op != RunStorageOp::kList) {
    if (absl::Status key = CheckKey(call.key); !key.ok()) return key;
  }
  if (call.op == RunStorageOp::kSet) {
    if (FindInvalidUtf8(call.value).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the value of '", call.key, "' is not valid UTF-8 text"));
    }
    if (space == kContext && !TryParseJson(call.value).has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the context value of '", call.key,
          "' is not JSON: context values are JSON (quote a string: \"\\\"text\\\"\")"));
    }
  }
  absl::StatusOr<RunMap*> loaded = LoadRun(call.tenant, call.root_run_id);
  if (!loaded.ok()) return loaded.status();
  RunMap& run = **loaded;
  std::map<std::string, std::string>& values = run.spaces[std::string(space)];
  RunStorageAnswer answer;
  const std::string entry_key =
      store::keys::RunStateEntry(call.tenant, call.root_run_id, space, call.key);

  switch (call.op) {
    case RunStorageOp::kGet:
      if (auto it = values.find(call.key); it != values.end()) {
        answer.found = true;
        answer.value = it->second;
      }
      break;
    case RunStorageOp::kList:
      answer.entries = values;
      break;
    case RunStorageOp::kDelete:
      if (auto it = values.find(call.key); it != values.end()) {
        absl::StatusOr<int64_t*> tenant = LoadTenant(call.tenant);
        if (!tenant.ok()) return tenant.status();
        const int64_t bytes = EntryBytes(it->first, it->second);
        run.bytes -= bytes;
        --run.keys;
        **tenant -= bytes;
        values.erase(it);
        writes.Delete(store::Column::kMeta, entry_key);
        answer.found = true;
      }
      break;
    case RunStorageOp::kSet: {
      if (static_cast<int64_t>(call.value.size()) > limits_.max_value_bytes) {
        return absl::ResourceExhaustedError(
            absl::StrCat("the value of '", call.key, "' is ", call.value.size(),
                         " bytes; a value may have at most ", limits_.max_value_bytes,
                         " (--run-state-max-value-bytes)"));
      }
      absl::StatusOr<int64_t*> tenant = LoadTenant(call.tenant);
      if (!tenant.ok()) return tenant.status();
      auto it = values.find(call.key);
      const int64_t old_bytes = it != values.end() ? EntryBytes(it->first, it->second) : 0;
      const int64_t new_bytes = EntryBytes(call.key, call.value);
      const int64_t grows = new_bytes - old_bytes;
      if (it == values.end() && run.keys + 1 > limits_.max_keys_per_run) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "run ", call.root_run_id, " already holds ", run.keys,
            " keys, the most a run may hold (", "--run-state-max-keys); delete one first"));
      }
      if (grows > 0 && run.bytes + grows > limits_.max_run_bytes) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "setting '", call.key, "' would make run ", call.root_run_id, "'s storage ",
            run.bytes + grows, " bytes, over its limit of ", limits_.max_run_bytes,
            " (--run-state-max-run-bytes); delete values first"));
      }
      if (grows > 0 && **tenant + grows > limits_.max_tenant_bytes) {
        // Retention deletes finished runs' maps behind this count's back
        // (run_deletion.h): read the store again before refusing.
        tenant_bytes_.erase(call.tenant);
        tenant = LoadTenant(call.tenant);
        if (!tenant.ok()) return tenant.status();
      }
      if (grows > 0 && **tenant + grows > limits_.max_tenant_bytes) {
        return absl::ResourceExhaustedError(absl::StrCat(
            "setting '", call.key, "' would make the tenant's run storage ", **tenant + grows,
            " bytes, over its limit of ", limits_.max_tenant_bytes,
            " (--run-state-max-tenant-bytes); delete values, or let old runs be deleted "
            "(--retention)"));
      }
      if (it == values.end()) {
        ++run.keys;
        values.emplace(call.key, call.value);
      } else {
        it->second = call.value;
      }
      run.bytes += grows;
      **tenant += grows;
      writes.Put(store::Column::kMeta, entry_key, call.value);
      answer.found = true;
      answer.value = call.value;
      break;
    }
  }
  answer.run_keys = run.keys;
  answer.run_bytes = run.bytes;
  return answer;
}

void RunStorage::ForgetInactive(const std::function<bool(const std::string&)>& active) {
  absl::erase_if(runs_, [&active](const auto& entry) { return !active(entry.second.root_run_id); });
}

std::optional<int64_t> RunStorage::TenantBytes(const std::string& tenant) const {
  auto it = tenant_bytes_.find(tenant);
  if (it == tenant_bytes_.end()) return std::nullopt;
  return it->second;
}

}  // namespace taskboard::engine
