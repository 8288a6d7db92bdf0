#include "worker/agents/llm_settings.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "common/llm_call_usage.h"

namespace taskboard::worker {
namespace {

struct FieldName {
  const char* camel;
  const char* snake;
};

constexpr FieldName kBaseUrl{"baseUrl", "base_url"};
constexpr FieldName kApiKeyEnv{"apiKeyEnv", "api_key_env"};
constexpr FieldName kMaxTurns{"maxTurns", "max_turns"};
constexpr FieldName kTemperature{"temperature", "temperature"};
constexpr FieldName kMaxTokens{"maxTokens", "max_tokens"};
constexpr FieldName kPriorWork{"priorWork", "prior_work"};
constexpr FieldName kStream{"stream", "stream"};
constexpr FieldName kRequestTimeout{"requestTimeoutSeconds", "request_timeout_seconds"};
constexpr FieldName kMaxAttempts{"maxAttempts", "max_attempts"};
constexpr FieldName kMaxResponseBytes{"maxResponseBytes", "max_response_bytes"};
constexpr FieldName kReasoningField{"reasoningField", "reasoning_field"};
constexpr FieldName kPricing{"pricing", "pricing"};
constexpr FieldName kInputPrice{"inputPerMtok", "input_per_mtok"};
constexpr FieldName kOutputPrice{"outputPerMtok", "output_per_mtok"};

constexpr FieldName kFields[] = {kBaseUrl,     kApiKeyEnv,        kMaxTurns,       kTemperature,
                                 kMaxTokens,   kPriorWork,        kStream,         kRequestTimeout,
                                 kMaxAttempts, kMaxResponseBytes, kReasoningField, kPricing};

// A model answer past 1 GiB is not an answer; the bound keeps a typo from
// turning the limit off.
constexpr int64_t kMaxResponseBytesCeiling = int64_t{1} << 30;

// The value of `field` in `doc` under either spelling (null when absent).
absl::StatusOr<const Json*> Find(const Json& doc, const FieldName& field) {
  auto camel = doc.find(field.camel);
  auto snake = doc.find(field.snake);
  const bool has_camel = camel != doc.end() && !camel->is_null();
  const bool has_snake = snake != doc.end() && !snake->is_null();
  if (has_camel && has_snake && camel != snake) {
    return absl::InvalidArgumentError(absl::StrCat("fields '", field.camel, "' and '", field.snake,
                                                   "' are the same setting: keep one of them"));
  }
  if (has_camel) return &*camel;
  if (has_snake) return &*snake;
  return nullptr;
}

absl::Status WrongValue(const FieldName& field, absl::string_view expected, const Json& value) {
  return absl::InvalidArgumentError(
      absl::StrCat("field '", field.camel, "' must be ", expected, ", got ", DumpJson(value)));
}

class Reader {
 public:
  explicit Reader(const Json& doc) : doc_(doc) {}

  absl::Status String(const FieldName& field, std::string* out) {
    return Read(field, [&](const Json& v) {
      if (!v.is_string() || v.get<std::string>().empty()) {
        return WrongValue(field, "a non-empty string", v);
      }
      *out = v.get<std::string>();
      return absl::OkStatus();
    });
  }

  absl::Status Bool(const FieldName& field, bool* out) {
    return Read(field, [&](const Json& v) {
      if (!v.is_boolean()) return WrongValue(field, "true or false", v);
      *out = v.get<bool>();
      return absl::OkStatus();
    });
  }

  // Values past `max` are refused here; fields with a ceiling of their own
  // pass a larger `max` and name the ceiling in their own error.
  absl::Status PositiveInt(const FieldName& field, int64_t* out, int64_t max = 1'000'000'000) {
    return Read(field, [&](const Json& v) {
      if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > max) {
        return WrongValue(field, "a whole number > 0", v);
      }
      *out = v.get<int64_t>();
      return absl::OkStatus();
    });
  }

  absl::Status NonNegative(const FieldName& field, double* out) {
    return Read(field, [&](const Json& v) {
      if (!v.is_number() || v.get<double>() < 0) return WrongValue(field, "a number >= 0", v);
      *out = v.get<double>();
      return absl::OkStatus();
    });
  }

 private:
  template <typename F>
  absl::Status Read(const FieldName& field, F&& read) {
    absl::StatusOr<const Json*> value = Find(doc_, field);
    if (!value.ok()) return value.status();
    if (*value == nullptr) return absl::OkStatus();
    return read(**value);
  }

  const Json& doc_;
};

absl::Status ReadPricing(const Json& doc, LlmSettings* settings) {
  absl::StatusOr<const Json*> pricing = Find(doc, kPricing);
  if (!pricing.ok()) return pricing.status();
  if (*pricing == nullptr) return absl::OkStatus();
  if (!(*pricing)->is_object()) {
    return WrongValue(kPricing, "a map of MODEL: {inputPerMtok, outputPerMtok}", **pricing);
  }
  for (const auto& [model, price] : (*pricing)->items()) {
    const std::string where = absl::StrCat("field 'pricing.", model, "'");
    if (!price.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " must be {inputPerMtok, outputPerMtok} (dollars per million tokens)"));
    }
    for (const auto& [key, value] : price.items()) {
      if (key != kInputPrice.camel && key != kInputPrice.snake && key != kOutputPrice.camel &&
          key != kOutputPrice.snake) {
        return absl::InvalidArgumentError(absl::StrCat(where, ": unknown field '", key,
                                                       "' (use inputPerMtok and outputPerMtok)"));
      }
    }
    ModelPrice& out = settings->pricing[model];
    Reader reader(price);
    if (absl::Status s = reader.NonNegative(kInputPrice, &out.input_per_mtok); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", s.message()));
    }
    if (absl::Status s = reader.NonNegative(kOutputPrice, &out.output_per_mtok); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

double CostUsd(const LlmSettings& settings, absl::string_view model, int64_t input_tokens,
               int64_t output_tokens) {
  auto price = settings.pricing.find(model);
  if (price == settings.pricing.end()) return 0;
  // Bounded as the scheduler bills a call, so the task's usage and the
  // run's billed total agree.
  return CallCostUsd((static_cast<double>(input_tokens) * price->second.input_per_mtok +
                      static_cast<double>(output_tokens) * price->second.output_per_mtok) /
                     1e6);
}

const std::vector<std::string>& LlmFieldNames() {
  static const std::vector<std::string>* names = [] {
    auto* list = new std::vector<std::string>();
    for (const FieldName& field : kFields) {
      list->push_back(field.camel);
      if (std::string(field.snake) != field.camel) list->push_back(field.snake);
    }
    return list;
  }();
  return *names;
}

absl::Status ReadLlmSettings(const Json& doc, bool is_llm, LlmSettings* settings) {
  if (!is_llm) {
    for (const std::string& name : LlmFieldNames()) {
      if (auto it = doc.find(name); it != doc.end() && !it->is_null()) {
        return absl::InvalidArgumentError(
            absl::StrCat("field '", name, "' applies only to llm agents (type: llm)"));
      }
    }
    return absl::OkStatus();
  }
  Reader reader(doc);
  int64_t max_turns = settings->max_turns;
  int64_t max_tokens = 0;
  int64_t timeout_seconds = absl::ToInt64Seconds(settings->request_timeout);
  int64_t max_attempts = settings->max_attempts;
  double temperature = -1;
  for (absl::Status s :
       {reader.String(kBaseUrl, &settings->base_url),
        reader.String(kApiKeyEnv, &settings->api_key_env),
        reader.PositiveInt(kMaxTurns, &max_turns), reader.PositiveInt(kMaxTokens, &max_tokens),
        reader.NonNegative(kTemperature, &temperature),
        reader.Bool(kPriorWork, &settings->prior_work), reader.Bool(kStream, &settings->stream),
        reader.PositiveInt(kRequestTimeout, &timeout_seconds),
        reader.PositiveInt(kMaxAttempts, &max_attempts),
        reader.PositiveInt(kMaxResponseBytes, &settings->max_response_bytes, INT64_MAX),
        reader.String(kReasoningField, &settings->reasoning_field), ReadPricing(doc, settings)}) {
    if (!s.ok()) return s;
  }
  if (max_turns > 10'000 || max_attempts > 100) {
    return absl::InvalidArgumentError(max_turns > 10'000
                                          ? "field 'maxTurns' must be at most 10000"
                                          : "field 'maxAttempts' must be at most 100");
  }
  if (settings->max_response_bytes > kMaxResponseBytesCeiling) {
    return absl::InvalidArgumentError(absl::StrCat("field 'maxResponseBytes' must be at most ",
                                                   kMaxResponseBytesCeiling, " (1 GiB)"));
  }
  settings->max_turns = static_cast<int>(max_turns);
  settings->max_attempts = static_cast<int>(max_attempts);
  settings->request_timeout = absl::Seconds(timeout_seconds);
  if (max_tokens > 0) settings->max_tokens = max_tokens;
  if (temperature >= 0) settings->temperature = temperature;
  return absl::OkStatus();
}

}  // namespace taskboard::worker
