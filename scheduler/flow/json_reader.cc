#include "scheduler/flow/json_reader.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace taskboard::flow {
namespace {

// Lower-cased with `_` and `-` removed, so planner_agent matches plannerAgent.
std::string NormalizeKey(absl::string_view key) {
  std::string out;
  for (char c : key) {
    if (c != '_' && c != '-') out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

thread_local FieldRecorder* current_recorder = nullptr;

}  // namespace

FieldRecorder::FieldRecorder() : outer_(current_recorder) { current_recorder = this; }

FieldRecorder::~FieldRecorder() { current_recorder = outer_; }

void FieldRecorder::Record(absl::string_view path, absl::string_view key) {
  if (current_recorder == nullptr) return;
  current_recorder->fields_[std::string(path)].insert(std::string(key));
}

std::string JoinPath(absl::string_view parent, absl::string_view key) {
  return parent.empty() ? std::string(key) : absl::StrCat(parent, ".", key);
}

std::string IndexPath(absl::string_view parent, size_t index) {
  return absl::StrCat(parent, "[", index, "]");
}

std::string DescribeJsonType(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float:
      return "a number";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

bool LooksLikeUnquotedPlaceholder(const Json& value) {
  return value.is_object() && value.size() == 1 && value.begin().value().is_null();
}

const Json* FindAnySpelling(const Json& object, absl::string_view key) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(std::string(key)); it != object.end()) return &*it;
  const std::string normalized = NormalizeKey(key);
  for (const auto& [name, value] : object.items()) {
    if (NormalizeKey(name) == normalized) return &value;
  }
  return nullptr;
}

std::optional<bool> BoolOrQuotedBool(const Json& value) {
  if (value.is_boolean()) return value.get<bool>();
  if (!value.is_string()) return std::nullopt;
  const std::string text =
      absl::AsciiStrToLower(absl::StripAsciiWhitespace(value.get_ref<const std::string&>()));
  if (text == "true") return true;
  if (text == "false") return false;
  return std::nullopt;
}

JsonReader::JsonReader(const Json& object, std::string path, FlowErrorList* errors,
                       KeySpelling spelling)
    : object_(&object), path_(std::move(path)), errors_(errors), spelling_(spelling) {
  if (!object.is_object()) {
    errors_->Add(path_, absl::StrCat("must be an object (got ", DescribeJsonType(object), ")"));
    errors_->MarkBroken(path_);
    object_ = nullptr;
  }
}

void JsonReader::Ignore(absl::string_view key) {
  known_.insert(std::string(key));
  FieldRecorder::Record(path_, key);
}

const Json* JsonReader::Raw(absl::string_view key) {
  known_.insert(std::string(key));
  FieldRecorder::Record(path_, key);
  if (object_ == nullptr) return nullptr;
  if (spelling_ == KeySpelling::kAnySpelling) return FindAnySpelling(*object_, key);
  auto it = object_->find(std::string(key));
  return it == object_->end() ? nullptr : &*it;
}

void JsonReader::TypeError(absl::string_view key, absl::string_view expected, const Json& got) {
  errors_->Add(FieldPath(key),
               absl::StrCat("must be ", expected, " (got ", DescribeJsonType(got), ")",
                            LooksLikeUnquotedPlaceholder(got) ? kQuotePlaceholderHint : ""));
  // Validation then skips "missing ..." errors for this field.
  errors_->MarkBroken(FieldPath(key));
}

std::optional<std::string> JsonReader::String(absl::string_view key) {
  const Json* value = Raw(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_string()) {
    TypeError(key, "a string", *value);
    return std::nullopt;
  }
  return value->get<std::string>();
}

std::optional<bool> JsonReader::Bool(absl::string_view key) {
  const Json* value = Raw(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  if (!value->is_boolean()) {
    TypeError(key, "true or false", *value);
    return std::nullopt;
  }
  return value->get<bool>();
}

std::optional<int64_t> JsonReader::Int(absl::string_view key, int64_t min, int64_t max) {
  const Json* value = Raw(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  const std::string range = absl::StrCat("an integer from ", min, " to ", max);
  if (!value->is_number()) {
    TypeError(key, range, *value);
    return std::nullopt;
  }
  const double number = value->get<double>();
  if (std::trunc(number) != number || number < static_cast<double>(min) ||
      number > static_cast<double>(max)) {
    errors_->Add(FieldPath(key), absl::StrCat("must be ", range, " (got ", DumpJson(*value), ")"));
    return std::nullopt;
  }
  return value->is_number_float() ? static_cast<int64_t>(number) : value->get<int64_t>();
}

std::optional<double> JsonReader::Number(absl::string_view key, double min) {
  const Json* value = Raw(key);
  if (value == nullptr || value->is_null()) return std::nullopt;
  const std::string range = absl::StrCat("a finite number >= ", min);
  if (!value->is_number()) {
    TypeError(key, range, *value);
    return std::nullopt;
  }
  const double number = value->get<double>();
  if (!std::isfinite(number) || number < min) {
    // DumpJson writes infinities and NaN as `null`; say what was read instead.
    const std::string got = std::isfinite(number) ? DumpJson(*value) : absl::StrCat(number);
    errors_->Add(FieldPath(key), absl::StrCat("must be ", range, " (got ", got, ")"));
    return std::nullopt;
  }
  return number;
}

std::vector<std::string> JsonReader::StringList(absl::string_view key) {
  std::vector<std::string> out;
  const Json* value = Raw(key);
  if (value == nullptr || value->is_null()) return out;
  if (!value->is_array()) {
    TypeError(key, "an array of strings", *value);
    return out;
  }
  for (size_t i = 0; i < value->size(); ++i) {
    const Json& element = (*value)[i];
    if (!element.is_string()) {
      errors_->Add(IndexPath(FieldPath(key), i),
                   absl::StrCat("must be a string (got ", DescribeJsonType(element), ")"));
      continue;
    }
    out.push_back(element.get<std::string>());
  }
  return out;
}

void JsonReader::RejectUnknownFields() {
  if (object_ == nullptr) return;
  for (const auto& [key, value] : object_->items()) {
    if (known_.contains(key)) continue;
    std::string message = absl::StrCat("unknown field '", key, "'");
    const std::string normalized = NormalizeKey(key);
    std::string best;
    size_t best_distance = 3;  // suggest only close matches
    for (const std::string& candidate : known_) {
      const size_t distance = NormalizeKey(candidate) == normalized
                                  ? 0
                                  : EditDistance(normalized, NormalizeKey(candidate));
      if (distance < best_distance || (distance == best_distance && candidate < best)) {
        best_distance = distance;
        best = candidate;
      }
    }
    if (!best.empty()) absl::StrAppend(&message, "; did you mean '", best, "'?");
    errors_->Add(FieldPath(key), message);
  }
}

}  // namespace taskboard::flow
