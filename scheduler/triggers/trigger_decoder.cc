#include "scheduler/triggers/trigger_decoder.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/starter_file.h"

namespace taskboard::triggers {
namespace {

using flow::FlowErrorList;
using flow::IndexPath;
using flow::JoinPath;
using flow::JsonReader;

std::optional<JsonPath> ReadPath(const std::string& text, const std::string& path,
                                 FlowErrorList* errors) {
  absl::StatusOr<JsonPath> parsed = JsonPath::Parse(text);
  if (!parsed.ok()) {
    errors->Add(path, std::string(parsed.status().message()));
    return std::nullopt;
  }
  return *std::move(parsed);
}

void DecodeFilter(const Json* value, std::vector<FilterCondition>* filter, FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_array()) {
    errors->Add("filter", absl::StrCat("must be a list of {path, equals} or {header, equals} (got ",
                                       flow::DescribeJsonType(*value), ")"));
    return;
  }
  if (value->size() > static_cast<size_t>(kMaxFilterConditions)) {
    errors->Add("filter", absl::StrCat("has ", value->size(), " conditions; at most ",
                                       kMaxFilterConditions, " are accepted"));
    return;
  }
  for (size_t i = 0; i < value->size(); ++i) {
    const std::string path = IndexPath("filter", i);
    JsonReader reader((*value)[i], path, errors);
    if (!reader.valid()) continue;
    std::optional<std::string> field = reader.String("path");
    std::optional<std::string> header = reader.String("header");
    const Json* equals = reader.Raw("equals");
    reader.RejectUnknownFields();
    FilterCondition condition;
    if (field.has_value() == header.has_value()) {
      errors->Add(path, "give one of path (a payload field, $.action) or header");
      continue;
    }
    if (equals == nullptr) {
      errors->Add(reader.FieldPath("equals"), "missing the value the field must equal");
      continue;
    }
    if (header.has_value()) {
      if (header->empty() || !equals->is_string()) {
        errors->Add(path, "a header condition names the header and equals text");
        continue;
      }
      condition.header = *header;
    } else {
      condition.path = ReadPath(*field, reader.FieldPath("path"), errors);
      if (!condition.path.has_value()) continue;
    }
    condition.equals = *equals;
    filter->push_back(std::move(condition));
  }
}

void DecodeArgs(const Json* value, std::vector<ArgSource>* args, FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object()) {
    errors->Add("args", absl::StrCat("must be an object of arg name -> JSON path or value (got ",
                                     flow::DescribeJsonType(*value), ")"));
    return;
  }
  if (value->size() > static_cast<size_t>(kMaxTriggerArgs)) {
    errors->Add("args", absl::StrCat("has ", value->size(), " args; at most ", kMaxTriggerArgs,
                                     " are accepted"));
    return;
  }
  for (const auto& [name, from] : value->items()) {
    const std::string path = JoinPath("args", name);
    if (from.is_string() && LooksLikeJsonPath(from.get_ref<const std::string&>())) {
      if (std::optional<JsonPath> parsed = ReadPath(from.get<std::string>(), path, errors)) {
        args->push_back({name, *std::move(parsed)});
      }
    } else {
      args->push_back({name, from});
    }
  }
}

void DecodeAuth(const Json* value, TriggerAuth* auth, FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  JsonReader reader(*value, "auth", errors);
  if (!reader.valid()) return;
  auth->hmac_secret = reader.String("hmacSecret").value_or("");
  std::optional<bool> bearer = reader.Bool("bearer");
  reader.RejectUnknownFields();
  if (!auth->hmac_secret.empty() && auth->hmac_secret.size() < kMinHmacSecretBytes) {
    errors->Add("auth.hmacSecret",
                absl::StrCat("is ", auth->hmac_secret.size(), " bytes; use at least ",
                             kMinHmacSecretBytes, " random ones (openssl rand -hex 32)"));
  }
  auth->bearer = bearer.value_or(auth->hmac_secret.empty());
  if (!auth->bearer && auth->hmac_secret.empty()) {
    errors->Add("auth", "with bearer: false, give hmacSecret: nothing could publish to it");
  }
}

void DecodeDedupe(const Json* value, DedupeSource* dedupe, FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  JsonReader reader(*value, "dedupe", errors);
  if (!reader.valid()) return;
  std::optional<std::string> header = reader.String("header");
  std::optional<std::string> path = reader.String("path");
  reader.RejectUnknownFields();
  if (header.has_value() == path.has_value()) {
    errors->Add("dedupe", "give one of header (X-GitHub-Delivery) or path (a payload field)");
    return;
  }
  if (header.has_value()) {
    if (header->empty()) errors->Add("dedupe.header", "must name a header");
    dedupe->header = *header;
  } else {
    dedupe->path = ReadPath(*path, "dedupe.path", errors);
  }
}

void DecodeRate(const Json* value, TriggerRate* rate, FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  JsonReader reader(*value, "rate", errors);
  if (!reader.valid()) return;
  if (std::optional<double> per_minute = reader.Number("perMinute", 0)) {
    if (*per_minute <= 0 || *per_minute > kMaxPerMinute) {
      errors->Add("rate.perMinute", absl::StrCat("must be above 0 and at most ", kMaxPerMinute));
    } else {
      rate->per_minute = *per_minute;
    }
  }
  if (std::optional<int64_t> burst = reader.Int("burst", 1, kMaxBurst)) rate->burst = *burst;
  reader.RejectUnknownFields();
}

void DecodeLabels(const Json* value, std::map<std::string, std::string>* labels,
                  FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object() || value->size() > 32) {
    errors->Add("labels", "must be an object of at most 32 name -> text");
    return;
  }
  for (const auto& [key, label] : value->items()) {
    if (key.empty() || key.size() > 63 || !label.is_string() ||
        label.get_ref<const std::string&>().size() > 256) {
      errors->Add(JoinPath("labels", key),
                  "label names are 1 to 63 bytes and values text of at most 256");
      continue;
    }
    (*labels)[key] = label.get<std::string>();
  }
}

// A trigger's own fields, after the name DecodeStarterFile reads.
void DecodeTriggerFields(JsonReader& reader, TriggerDefinition& definition, FlowErrorList* errors) {
  definition.event = flow::ReadStarterName(reader, "event", "event name", errors);
  definition.flow = flow::ReadStarterName(reader, "flow", "saved flow name", errors);
  definition.flow_version = reader.Int("flowVersion", 1, std::numeric_limits<int64_t>::max());
  DecodeFilter(reader.Raw("filter"), &definition.filter, errors);
  DecodeArgs(reader.Raw("args"), &definition.args, errors);
  DecodeLabels(reader.Raw("labels"), &definition.labels, errors);
  DecodeAuth(reader.Raw("auth"), &definition.auth, errors);
  DecodeDedupe(reader.Raw("dedupe"), &definition.dedupe, errors);
  DecodeRate(reader.Raw("rate"), &definition.rate, errors);
  definition.paused = reader.Bool("paused").value_or(false);
}

}  // namespace

absl::StatusOr<TriggerDefinition> DecodeTrigger(const Json& doc) {
  return flow::DecodeStarterFile<TriggerDefinition>(doc, "trigger", "name, event and flow",
                                                    DecodeTriggerFields);
}

absl::StatusOr<TriggerDefinition> LoadTriggerText(absl::string_view text) {
  absl::StatusOr<Json> doc = flow::ParseStarterText(text, "trigger", kMaxTriggerTextBytes);
  if (!doc.ok()) return doc.status();
  return DecodeTrigger(*doc);
}

}  // namespace taskboard::triggers
