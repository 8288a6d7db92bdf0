#include "scheduler/governance/llm_limits.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <limits>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/json.h"
#include "common/utf8.h"
#include "common/yaml_json.h"

namespace taskboard::governance {
namespace {

// Far more models and tenants than any cluster configures, small enough that
// a generated or hostile file cannot turn into tables the governor must walk
// on every grant. (The YAML reader already bounds the document itself: at
// most 2^20 values, MaxJsonDepth() levels.)
constexpr size_t kMaxModels = 10'000;
constexpr size_t kMaxTenants = 10'000;
// 10,000 fully written tenants fit in about 2 MiB; the bound stops the file
// reader before it holds gigabytes (or reads /dev/zero forever).
constexpr size_t kMaxLlmLimitsBytes = size_t{16} << 20;
constexpr char kTooLargeAdvice[] = "list only the models and tenants you limit";
// No model writes this many tokens in one answer: a larger default is a typo
// that would reserve more than a minute's tokens for every uncapped call.
constexpr int64_t kMaxDefaultOutputTokens = 10'000'000;
// A file with thousands of broken entries is usually broken the same way
// thousands of times; the first problems say what to fix, and the message
// stays small enough for a log line.
constexpr size_t kMaxReportedProblems = 100;
// Names and strings are quoted in errors up to this many bytes.
constexpr size_t kMaxQuotedBytes = 64;

// `text` cut to kMaxQuotedBytes, as valid UTF-8 (errors go to logs and gRPC
// statuses).
std::string Quoted(absl::string_view text) {
  if (text.size() <= kMaxQuotedBytes) return ToValidUtf8(text);
  return absl::StrCat(ToValidUtf8(text.substr(0, kMaxQuotedBytes)), "[...]");
}

// How a value reads after "got" in an error.
std::string Describe(const Json& value) {
  if (value.is_object()) return "a mapping";
  if (value.is_array()) return "a list";
  if (value.is_string()) return DumpJson(Json(Quoted(value.get_ref<const std::string&>())));
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    // DumpJson writes these as null, which would mislead.
    if (std::isnan(value.get<double>())) return "NaN";
    return value.get<double>() > 0 ? "infinity" : "-infinity";
  }
  return DumpJson(value);
}

// "models" + "gpt-4o" -> "models.gpt-4o".
std::string At(absl::string_view path, absl::string_view key) {
  return path.empty() ? Quoted(key) : absl::StrCat(path, ".", Quoted(key));
}

// The tokens file's rule for tenants (scheduler/auth/tokens_file.cc): callers
// only ever have such tenants, so a policy for any other name would never
// apply.
bool IsTenantName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

bool LimitsSomething(const ModelLimits& limits) {
  return limits.rpm > 0 || limits.tpm > 0 || limits.concurrency > 0;
}

// Every problem found, one line each: fixing a file one error per reload is
// slow, and a typo in one entry should not hide the next.
class Problems {
 public:
  void Add(absl::string_view path, absl::string_view problem) {
    ++count_;
    if (lines_.size() < kMaxReportedProblems) lines_.push_back(absl::StrCat(path, ": ", problem));
  }
  bool empty() const { return count_ == 0; }
  absl::Status ToStatus() const {
    std::string text = absl::StrJoin(lines_, "\n");
    if (count_ > lines_.size()) {
      absl::StrAppend(&text, "\n... and ", count_ - lines_.size(),
                      " more problems; fix the ones above first");
    }
    return absl::InvalidArgumentError(text);
  }

 private:
  std::vector<std::string> lines_;
  size_t count_ = 0;
};

// Reads a parsed document into LlmLimits, recording every problem instead of
// stopping at the first.
class Reader {
 public:
  absl::StatusOr<LlmLimits> Read(const Json& document) {
    LlmLimits limits;
    if (!document.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the document must be a mapping of defaultOutputTokens, models and "
                       "tenants, got ",
                       Describe(document)));
    }
    for (const auto& [key, value] : document.items()) {
      if (key == "defaultOutputTokens") {
        WholeNumber(value, key, 1, kMaxDefaultOutputTokens, &limits.default_output_tokens);
      } else if (key == "models") {
        Models(value, key, &limits);
      } else if (key == "tenants") {
        Tenants(value, key, &limits.tenants);
      } else {
        Unknown("", key, "defaultOutputTokens, models or tenants");
      }
    }
    if (!problems_.empty()) return problems_.ToStatus();
    return limits;
  }

 private:
  void Models(const Json& value, const std::string& path, LlmLimits* limits) {
    if (!Mapping(value, path, "a mapping of model names to {rpm, tpm, concurrency, price}") ||
        !WithinCount(value, path, kMaxModels, "models",
                     "list only the models that have limits or a price")) {
      return;
    }
    for (const auto& [name, entry] : value.items()) {
      if (name.empty()) {
        problems_.Add(path, "a model name is empty; use the name calls give the model");
        continue;
      }
      const std::string entry_path = At(path, name);
      if (!Mapping(entry, entry_path, "a mapping of rpm, tpm, concurrency and price")) continue;
      ModelLimits model;
      std::optional<ModelPrice> price;
      for (const auto& [key, field] : entry.items()) {
        if (Limit(key, field, entry_path, &model)) continue;
        if (key == "price") {
          Price(field, At(entry_path, key), &price);
        } else {
          Unknown(entry_path, key, "rpm, tpm, concurrency or price");
        }
      }
      // A model with only a price is priced, not governed: the governor
      // then need not track calls to it.
      if (LimitsSomething(model)) limits->models[name] = model;
      if (price.has_value()) limits->prices[name] = *price;
    }
  }

  void Tenants(const Json& value, const std::string& path,
               std::map<std::string, TenantPolicy>* tenants) {
    if (!Mapping(value, path, "a mapping of tenant names to {budget, models, traceContent}") ||
        !WithinCount(value, path, kMaxTenants, "tenants",
                     "list only the tenants that need their own limits or budget")) {
      return;
    }
    for (const auto& [name, entry] : value.items()) {
      if (name.empty()) {
        problems_.Add(path, "a tenant name is empty; use the tenant of the callers' tokens");
        continue;
      }
      const std::string entry_path = At(path, name);
      if (!IsTenantName(name)) {
        problems_.Add(entry_path,
                      "a tenant is 1 to 64 letters, digits, '.', '_' or '-' (the tokens file's "
                      "rule), so no caller can have this one; check the spelling");
      }
      TenantPolicy policy;
      if (Mapping(entry, entry_path, "a mapping of budget, models and traceContent")) {
        for (const auto& [key, field] : entry.items()) {
          if (key == "budget") {
            Budget(field, At(entry_path, key), &policy.budget);
          } else if (key == "models") {
            TenantModels(field, At(entry_path, key), &policy.models);
          } else if (key == "traceContent") {
            if (field.is_boolean()) {
              policy.trace_content = field.get<bool>();
            } else {
              problems_.Add(At(entry_path, key),
                            absl::StrCat("must be true or false, got ", Describe(field)));
            }
          } else {
            Unknown(entry_path, key, "budget, models or traceContent");
          }
        }
      }
      (*tenants)[name] = std::move(policy);
    }
  }

  void TenantModels(const Json& value, const std::string& path,
                    std::map<std::string, ModelLimits>* models) {
    if (!Mapping(value, path, "a mapping of model names to {rpm, tpm, concurrency}") ||
        !WithinCount(value, path, kMaxModels, "models",
                     "list only the models this tenant has its own limits for")) {
      return;
    }
    for (const auto& [name, entry] : value.items()) {
      if (name.empty()) {
        problems_.Add(path, "a model name is empty; use the name calls give the model");
        continue;
      }
      const std::string entry_path = At(path, name);
      if (!Mapping(entry, entry_path, "a mapping of rpm, tpm and concurrency")) continue;
      ModelLimits limits;
      for (const auto& [key, field] : entry.items()) {
        if (Limit(key, field, entry_path, &limits)) continue;
        // Prices are what the provider charges, the same for every tenant.
        Unknown(entry_path, key,
                key == "price" ? "rpm, tpm or concurrency (set a model's price under "
                                 "models.<model>.price)"
                               : "rpm, tpm or concurrency");
      }
      if (LimitsSomething(limits)) (*models)[name] = limits;
    }
  }

  // Reads `key` into `limits` when it is one of rpm, tpm, concurrency.
  bool Limit(const std::string& key, const Json& value, const std::string& path,
             ModelLimits* limits) {
    if (key == "rpm") {
      Number(value, At(path, key), &limits->rpm);
    } else if (key == "tpm") {
      Number(value, At(path, key), &limits->tpm);
    } else if (key == "concurrency") {
      int64_t concurrency = 0;
      if (WholeNumber(value, At(path, key), 0, std::numeric_limits<int>::max(), &concurrency)) {
        limits->concurrency = static_cast<int>(concurrency);
      }
    } else {
      return false;
    }
    return true;
  }

  void Price(const Json& value, const std::string& path, std::optional<ModelPrice>* out) {
    if (!Mapping(value, path,
                 "a mapping of input, output and cachedInput (USD per million tokens)")) {
      return;
    }
    ModelPrice price;
    for (const auto& [key, field] : value.items()) {
      if (key == "input") {
        Number(field, At(path, key), &price.input);
      } else if (key == "output") {
        Number(field, At(path, key), &price.output);
      } else if (key == "cachedInput") {
        double cached = 0;
        if (Number(field, At(path, key), &cached)) price.cached_input = cached;
      } else {
        Unknown(path, key, "input, output or cachedInput");
      }
    }
    *out = price;
  }

  void Budget(const Json& value, const std::string& path, std::optional<TenantBudget>* out) {
    if (!Mapping(value, path, "a mapping of usd, tokens and period")) return;
    TenantBudget budget;
    for (const auto& [key, field] : value.items()) {
      if (key == "usd") {
        Number(field, At(path, key), &budget.usd);
      } else if (key == "tokens") {
        WholeNumber(field, At(path, key), 0, std::numeric_limits<int64_t>::max(), &budget.tokens);
      } else if (key == "period") {
        Period(field, At(path, key), &budget.period);
      } else {
        Unknown(path, key, "usd, tokens or period");
      }
    }
    // Like a model's limits: kept only when it limits something.
    if (budget.usd > 0 || budget.tokens > 0) *out = budget;
  }

  void Period(const Json& value, const std::string& path, BudgetPeriod* out) {
    if (value == "day") {
      *out = BudgetPeriod::kDay;
    } else if (value == "month") {
      *out = BudgetPeriod::kMonth;
    } else {
      problems_.Add(path, absl::StrCat("must be day or month (UTC), got ", Describe(value)));
    }
  }

  // Whether `value` is a mapping to read. A key with nothing after it
  // (null) is an empty mapping: YAML files often keep a section whose
  // entries are all commented out.
  bool Mapping(const Json& value, const std::string& path, absl::string_view what) {
    if (value.is_object()) return true;
    if (!value.is_null()) {
      problems_.Add(path, absl::StrCat("must be ", what, ", got ", Describe(value)));
    }
    return false;
  }

  bool WithinCount(const Json& mapping, const std::string& path, size_t max, absl::string_view what,
                   absl::string_view instead) {
    if (mapping.size() <= max) return true;
    problems_.Add(path, absl::StrCat(mapping.size(), " ", what, " is more than the limit of ", max,
                                     "; ", instead));
    return false;
  }

  // Null is refused like any other non-number: an empty `rpm:` must not
  // quietly mean "no limit".
  bool Number(const Json& value, const std::string& path, double* out) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
      problems_.Add(path, absl::StrCat("must be a number >= 0, got ", Describe(value)));
      return false;
    }
    *out = value.get<double>();
    return true;
  }

  // An integer in [min, max]; a whole float such as 2e7 counts (YAML reads
  // exponents as floats).
  bool WholeNumber(const Json& value, const std::string& path, int64_t min, int64_t max,
                   int64_t* out) {
    const bool whole = value.is_number_integer() ||
                       (value.is_number_float() && std::isfinite(value.get<double>()) &&
                        std::trunc(value.get<double>()) == value.get<double>());
    const bool below =
        whole && (value.is_number_unsigned()  ? value.get<uint64_t>() < static_cast<uint64_t>(min)
                  : value.is_number_integer() ? value.get<int64_t>() < min
                                              : value.get<double>() < min);
    if (!whole || below) {
      problems_.Add(path, absl::StrCat("must be a whole number ", min > 0 ? "> 0" : ">= 0",
                                       ", got ", Describe(value)));
      return false;
    }
    // 2^63 and above do not fit; as a double, max itself may round up to it.
    const bool above =
        value.is_number_unsigned() ? value.get<uint64_t>() > static_cast<uint64_t>(max)
        : value.is_number_integer()
            ? value.get<int64_t>() > max
            : value.get<double>() >= 0x1p63 || value.get<double>() > static_cast<double>(max);
    if (above) {
      problems_.Add(path, absl::StrCat("must be at most ", max, ", got ", Describe(value)));
      return false;
    }
    *out = value.is_number_integer() ? value.get<int64_t>()
                                     : static_cast<int64_t>(value.get<double>());
    return true;
  }

  void Unknown(const std::string& path, const std::string& key, absl::string_view expected) {
    problems_.Add(At(path, key), absl::StrCat("unknown key; expected ", expected));
  }

  Problems problems_;
};

}  // namespace

absl::StatusOr<LlmLimits> ParseLlmLimits(absl::string_view text) {
  if (text.size() > kMaxLlmLimitsBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("the document is ", text.size(), " bytes, more than the limit of ",
                     kMaxLlmLimitsBytes, " (16 MiB); ", kTooLargeAdvice));
  }
  absl::StatusOr<Json> document = ParseYamlAsJson(text);
  if (!document.ok()) return document.status();
  // Empty, or nothing but comments: no limits.
  if (document->is_null()) return LlmLimits();
  return Reader().Read(*document);
}

absl::StatusOr<LlmLimits> LoadLlmLimitsFile(const std::filesystem::path& path) {
  // Not ReadFileOrEmpty (common/files.h): an empty file is a valid document
  // (no limits), so a missing one must not read as empty.
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.string(), ": is a directory; give --llm-limits the limits file itself"));
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int cause = errno;
    const std::string reason = cause != 0 ? std::generic_category().message(cause) : "unreadable";
    const std::string message =
        absl::StrCat(path.string(), ": cannot read the LLM limits file (", reason,
                     "); check the path given to --llm-limits and that the scheduler's user may "
                     "read it");
    return cause == ENOENT || cause == ENOTDIR ? absl::NotFoundError(message)
                                               : absl::InvalidArgumentError(message);
  }
  // At most one byte past the limit: an oversized file (or /dev/zero) is
  // refused without being read whole.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxLlmLimitsBytes) {
    const size_t want = std::min(sizeof(chunk), kMaxLlmLimitsBytes + 1 - text.size());
    if (in.read(chunk, static_cast<std::streamsize>(want)).gcount() <= 0) break;
    text.append(chunk, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path.string(), ": reading the LLM limits file failed; check the disk and try again"));
  }
  if (text.size() > kMaxLlmLimitsBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(path.string(), ": the LLM limits file is larger than the limit of ",
                     kMaxLlmLimitsBytes, " bytes (16 MiB); ", kTooLargeAdvice));
  }
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(text);
  if (!limits.ok()) {
    // Several problems start on their own lines, under the path.
    const absl::string_view message = limits.status().message();
    return absl::InvalidArgumentError(absl::StrCat(
        path.string(), message.find('\n') == absl::string_view::npos ? ": " : ":\n", message));
  }
  return limits;
}

bool TenantAllowsTraceContent(const LlmLimits& limits, const std::string& tenant) {
  const auto policy = limits.tenants.find(tenant);
  return policy == limits.tenants.end() || policy->second.trace_content;
}

std::optional<double> PriceCall(const LlmLimits& limits, const std::string& model,
                                int64_t input_tokens, int64_t output_tokens,
                                int64_t cached_tokens) {
  auto it = limits.prices.find(model);
  if (it == limits.prices.end()) return std::nullopt;
  const ModelPrice& price = it->second;
  // Counts come from workers: a negative one costs nothing, and cached
  // tokens are part of the input, so never more than it.
  const double input = static_cast<double>(std::max<int64_t>(input_tokens, 0));
  const double output = static_cast<double>(std::max<int64_t>(output_tokens, 0));
  const double cached = std::clamp(static_cast<double>(cached_tokens), 0.0, input);
  return ((input - cached) * price.input + cached * price.cached_input.value_or(price.input) +
          output * price.output) /
         1e6;
}

}  // namespace taskboard::governance
