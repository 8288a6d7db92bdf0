#include "scheduler/schedules/schedule_decoder.h"

#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/duration_text.h"
#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/starter_file.h"

namespace taskboard::schedules {
namespace {

using flow::FlowErrorList;
using flow::IndexPath;
using flow::JoinPath;
using flow::JsonReader;

// A duration field: a string such as "30s", "1h30m", "7d".
std::optional<absl::Duration> ReadDuration(JsonReader& reader, absl::string_view key,
                                           FlowErrorList* errors) {
  std::optional<std::string> text = reader.String(key);
  if (!text) return std::nullopt;
  absl::StatusOr<absl::Duration> duration = ParseDurationText(*text);
  if (!duration.ok()) {
    errors->Add(reader.FieldPath(key), std::string(duration.status().message()));
    return std::nullopt;
  }
  return *duration;
}

std::optional<absl::Time> ReadTime(JsonReader& reader, absl::string_view key,
                                   FlowErrorList* errors) {
  std::optional<std::string> text = reader.String(key);
  if (!text) return std::nullopt;
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, *text, &time, &error)) {
    errors->Add(reader.FieldPath(key),
                absl::StrCat("'", *text,
                             "' is not an RFC 3339 time; write it like 2026-12-01T00:00:00Z "
                             "(quote it in YAML)"));
    return std::nullopt;
  }
  return time;
}

// A field that is one entry or a list of them: the entries with their paths.
std::vector<std::pair<const Json*, std::string>> OneOrMany(const Json* value,
                                                           const std::string& path) {
  std::vector<std::pair<const Json*, std::string>> entries;
  if (value == nullptr || value->is_null()) return entries;
  if (!value->is_array()) {
    entries.emplace_back(value, path);
    return entries;
  }
  for (size_t i = 0; i < value->size(); ++i) entries.emplace_back(&(*value)[i], IndexPath(path, i));
  return entries;
}

void AddCron(const std::string& expression, const std::string& zone, const std::string& path,
             ScheduleSpec* spec, FlowErrorList* errors) {
  absl::StatusOr<CronItem> item = MakeCronItem(expression, zone);
  if (!item.ok()) {
    errors->Add(path, std::string(item.status().message()));
    return;
  }
  spec->crons.push_back(*std::move(item));
}

void DecodeCrons(const Json* value, const std::string& path, const std::string& default_zone,
                 ScheduleSpec* spec, FlowErrorList* errors) {
  for (const auto& [entry, entry_path] : OneOrMany(value, path)) {
    if (entry->is_string()) {
      AddCron(entry->get<std::string>(), default_zone, entry_path, spec, errors);
      continue;
    }
    if (!entry->is_object()) {
      errors->Add(entry_path, absl::StrCat("must be a cron expression such as \"0 2 * * *\", or "
                                           "{expression, timeZone} (got ",
                                           flow::DescribeJsonType(*entry), ")"));
      continue;
    }
    JsonReader reader(*entry, entry_path, errors);
    std::optional<std::string> expression = reader.String("expression");
    std::optional<std::string> zone = reader.String("timeZone");
    reader.RejectUnknownFields();
    if (!expression) {
      errors->Add(reader.FieldPath("expression"), "missing cron expression");
      continue;
    }
    AddCron(*expression, zone.value_or(default_zone),
            zone ? reader.FieldPath("timeZone") : entry_path, spec, errors);
  }
}

void DecodeIntervals(const Json* value, const std::string& path, ScheduleSpec* spec,
                     FlowErrorList* errors) {
  for (const auto& [entry, entry_path] : OneOrMany(value, path)) {
    std::optional<absl::Duration> every;
    absl::Duration offset = absl::ZeroDuration();
    if (entry->is_string()) {
      absl::StatusOr<absl::Duration> parsed = ParseDurationText(entry->get<std::string>());
      if (!parsed.ok()) {
        errors->Add(entry_path, std::string(parsed.status().message()));
        continue;
      }
      every = *parsed;
    } else if (entry->is_object()) {
      JsonReader reader(*entry, entry_path, errors);
      every = ReadDuration(reader, "every", errors);
      offset = ReadDuration(reader, "offset", errors).value_or(absl::ZeroDuration());
      reader.RejectUnknownFields();
      if (!every) {
        if (reader.Raw("every") == nullptr) {
          errors->Add(reader.FieldPath("every"), "missing interval length, e.g. every: 1h");
        }
        continue;
      }
    } else {
      errors->Add(entry_path, absl::StrCat("must be a duration such as \"6h\", or {every, "
                                           "offset} (got ",
                                           flow::DescribeJsonType(*entry), ")"));
      continue;
    }
    absl::StatusOr<IntervalItem> item = MakeIntervalItem(*every, offset);
    if (!item.ok()) {
      errors->Add(entry_path, std::string(item.status().message()));
      continue;
    }
    spec->intervals.push_back(*item);
  }
}

ScheduleSpec DecodeSpec(const Json& value, const std::string& path, FlowErrorList* errors) {
  ScheduleSpec spec;
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be an object with cron and/or interval (got ",
                                   flow::DescribeJsonType(value), ")"));
    return spec;
  }
  JsonReader reader(value, path, errors);
  const std::string zone = reader.String("timeZone").value_or("UTC");
  DecodeCrons(reader.Raw("cron"), reader.FieldPath("cron"), zone, &spec, errors);
  DecodeIntervals(reader.Raw("interval"), reader.FieldPath("interval"), &spec, errors);
  spec.start_time = ReadTime(reader, "startTime", errors);
  spec.end_time = ReadTime(reader, "endTime", errors);
  spec.jitter = ReadDuration(reader, "jitter", errors).value_or(absl::ZeroDuration());
  reader.RejectUnknownFields();
  if (absl::Status status = CheckScheduleSpec(spec); !status.ok()) {
    errors->Add(path, std::string(status.message()));
  }
  return spec;
}

void DecodeLabels(const Json* value, const std::string& path,
                  std::map<std::string, std::string>* labels, FlowErrorList* errors) {
  if (value == nullptr || value->is_null()) return;
  if (!value->is_object()) {
    errors->Add(path, absl::StrCat("must be an object of name -> text (got ",
                                   flow::DescribeJsonType(*value), ")"));
    return;
  }
  if (value->size() > static_cast<size_t>(kMaxScheduleLabels)) {
    errors->Add(path, absl::StrCat("has ", value->size(), " labels; at most ", kMaxScheduleLabels,
                                   " are accepted"));
    return;
  }
  for (const auto& [key, label] : value->items()) {
    const std::string label_path = JoinPath(path, key);
    if (key.empty() || key.size() > kMaxLabelKeyBytes) {
      errors->Add(label_path, absl::StrCat("label names are 1 to ", kMaxLabelKeyBytes, " bytes"));
    } else if (!label.is_string()) {
      errors->Add(label_path,
                  absl::StrCat("must be text (got ", flow::DescribeJsonType(label), "); quote it"));
    } else if (label.get_ref<const std::string&>().size() > kMaxLabelValueBytes) {
      errors->Add(label_path,
                  absl::StrCat("label values are at most ", kMaxLabelValueBytes, " bytes"));
    } else {
      (*labels)[key] = label.get<std::string>();
    }
  }
}

// A schedule's own fields, after the name DecodeStarterFile reads.
void DecodeScheduleFields(JsonReader& reader, ScheduleDefinition& definition,
                          FlowErrorList* errors) {
  definition.flow = flow::ReadStarterName(reader, "flow", "saved flow name", errors);
  definition.flow_version = reader.Int("flowVersion", 1, std::numeric_limits<int64_t>::max());
  if (const Json* args = reader.Raw("args"); args != nullptr && !args->is_null()) {
    if (args->is_object()) {
      definition.args = *args;
    } else {
      errors->Add("args", absl::StrCat("must be an object of arg name -> value (got ",
                                       flow::DescribeJsonType(*args), ")"));
    }
  }
  DecodeLabels(reader.Raw("labels"), "labels", &definition.labels, errors);
  definition.run_timeout_seconds = static_cast<int32_t>(
      reader.Int("runTimeoutSeconds", 1, flow::kMaxRunTimeoutSeconds).value_or(0));
  if (const Json* spec = reader.Raw("spec"); spec != nullptr && !spec->is_null()) {
    definition.spec = DecodeSpec(*spec, "spec", errors);
  } else {
    errors->Add("spec", "missing spec: give spec.cron and/or spec.interval");
  }
  if (std::optional<std::string> overlap = reader.String("overlap")) {
    if (std::optional<OverlapPolicy> policy = OverlapPolicyFromName(*overlap)) {
      definition.policies.overlap = *policy;
    } else {
      errors->Add("overlap", absl::StrCat("unknown overlap policy '", *overlap,
                                          "'; use skip, buffer_one, buffer_all, cancel_other or "
                                          "allow_all"));
    }
  }
  if (std::optional<absl::Duration> window = ReadDuration(reader, "catchupWindow", errors)) {
    if (*window < kMinCatchupWindow || *window > kMaxCatchupWindow) {
      errors->Add("catchupWindow", absl::StrCat("must be from 10s to 366d (got ",
                                                absl::FormatDuration(*window), ")"));
    } else {
      definition.policies.catchup_window = *window;
    }
  }
  definition.paused = reader.Bool("paused").value_or(false);
  definition.note = reader.String("note").value_or("");
}

}  // namespace

absl::StatusOr<ScheduleDefinition> DecodeSchedule(const Json& doc) {
  return flow::DecodeStarterFile<ScheduleDefinition>(doc, "schedule", "name, flow and spec",
                                                     DecodeScheduleFields);
}

absl::StatusOr<ScheduleDefinition> LoadScheduleText(absl::string_view text) {
  absl::StatusOr<Json> doc = flow::ParseStarterText(text, "schedule", kMaxScheduleTextBytes);
  if (!doc.ok()) return doc.status();
  return DecodeSchedule(*doc);
}

}  // namespace taskboard::schedules
