#include "scheduler/governance/llm_limits.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::governance {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::AllOf;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Key;
using ::testing::Optional;

// The example in llm_limits.h, plus a priced-only model.
constexpr char kExample[] = R"(
defaultOutputTokens: 1024          # assumed when a call sets no max_tokens
models:
  gpt-4o-mini:
    rpm: 500                       # requests per minute
    tpm: 200000                    # input + output tokens per minute
    concurrency: 16                # calls in flight at once
    price: {input: 0.15, output: 0.60, cachedInput: 0.075}   # USD per 1M tokens
  gpt-4o:
    price: {input: 2.5, output: 10}
tenants:
  acme:
    budget: {usd: 50, tokens: 20000000, period: day}         # or month (UTC)
    models:
      gpt-4o-mini: {rpm: 100}      # acme's share, within the model's limits
  globex:
    budget: {usd: 1000, period: month}
)";

TEST(LlmLimitsTest, HeaderExample_ParsesToItsValues) {
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(kExample);
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_EQ(limits->default_output_tokens, 1024);

  ASSERT_THAT(limits->models, ElementsAre(Key("gpt-4o-mini")));
  const ModelLimits& mini = limits->models.at("gpt-4o-mini");
  EXPECT_EQ(mini.rpm, 500);
  EXPECT_EQ(mini.tpm, 200000);
  EXPECT_EQ(mini.concurrency, 16);

  ASSERT_THAT(limits->prices, ElementsAre(Key("gpt-4o"), Key("gpt-4o-mini")));
  EXPECT_EQ(limits->prices.at("gpt-4o-mini").input, 0.15);
  EXPECT_EQ(limits->prices.at("gpt-4o-mini").output, 0.60);
  EXPECT_THAT(limits->prices.at("gpt-4o-mini").cached_input, Optional(0.075));
  EXPECT_EQ(limits->prices.at("gpt-4o").input, 2.5);
  EXPECT_EQ(limits->prices.at("gpt-4o").output, 10);
  EXPECT_EQ(limits->prices.at("gpt-4o").cached_input, std::nullopt);

  ASSERT_THAT(limits->tenants, ElementsAre(Key("acme"), Key("globex")));
  const TenantPolicy& acme = limits->tenants.at("acme");
  ASSERT_TRUE(acme.budget.has_value());
  EXPECT_EQ(acme.budget->usd, 50);
  EXPECT_EQ(acme.budget->tokens, 20000000);
  EXPECT_EQ(acme.budget->period, BudgetPeriod::kDay);
  ASSERT_THAT(acme.models, ElementsAre(Key("gpt-4o-mini")));
  EXPECT_EQ(acme.models.at("gpt-4o-mini").rpm, 100);
  EXPECT_EQ(acme.models.at("gpt-4o-mini").tpm, 0);
  EXPECT_EQ(acme.models.at("gpt-4o-mini").concurrency, 0);
  const TenantPolicy& globex = limits->tenants.at("globex");
  ASSERT_TRUE(globex.budget.has_value());
  EXPECT_EQ(globex.budget->usd, 1000);
  EXPECT_EQ(globex.budget->tokens, 0);
  EXPECT_EQ(globex.budget->period, BudgetPeriod::kMonth);
  EXPECT_TRUE(globex.models.empty());
}

TEST(LlmLimitsTest, Json_ParsesLikeYaml) {
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(
      R"({"defaultOutputTokens": 2048,
          "models": {"m": {"rpm": 1.5, "price": {"input": 1, "output": 2}}},
          "tenants": {"t": {"budget": {"tokens": 5}}}})");
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_EQ(limits->default_output_tokens, 2048);
  EXPECT_EQ(limits->models.at("m").rpm, 1.5);
  EXPECT_EQ(limits->prices.at("m").output, 2);
  ASSERT_TRUE(limits->tenants.at("t").budget.has_value());
  EXPECT_EQ(limits->tenants.at("t").budget->tokens, 5);
}

TEST(LlmLimitsTest, EmptyDocuments_HaveNoLimits) {
  for (const char* text : {"", "# nothing yet\n", "{}", "models:\ntenants:\n"}) {
    absl::StatusOr<LlmLimits> limits = ParseLlmLimits(text);
    ASSERT_THAT(limits.status(), IsOk()) << text;
    EXPECT_TRUE(limits->models.empty()) << text;
    EXPECT_TRUE(limits->prices.empty()) << text;
    EXPECT_TRUE(limits->tenants.empty()) << text;
    EXPECT_EQ(limits->default_output_tokens, 1024) << text;
  }
}

TEST(LlmLimitsTest, Defaults_PeriodIsDayAndCachedInputUnset) {
  absl::StatusOr<LlmLimits> limits =
      ParseLlmLimits("models: {m: {price: {output: 3}}}\ntenants: {t: {budget: {usd: 1}}}\n");
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_EQ(limits->prices.at("m").input, 0);
  EXPECT_EQ(limits->prices.at("m").cached_input, std::nullopt);
  EXPECT_EQ(limits->tenants.at("t").budget->period, BudgetPeriod::kDay);
  EXPECT_EQ(limits->tenants.at("t").budget->tokens, 0);
}

TEST(LlmLimitsTest, TraceContent_OnUnlessTheTenantTurnsItOff) {
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(
      "tenants:\n  private: {traceContent: false}\n  open: {traceContent: true}\n"
      "  budgeted: {budget: {usd: 1}}\n");
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_FALSE(TenantAllowsTraceContent(*limits, "private"));
  EXPECT_TRUE(TenantAllowsTraceContent(*limits, "open"));
  EXPECT_TRUE(TenantAllowsTraceContent(*limits, "budgeted"));
  EXPECT_TRUE(TenantAllowsTraceContent(*limits, "unlisted"));
  EXPECT_TRUE(TenantAllowsTraceContent(*limits, ""));
  EXPECT_THAT(ParseLlmLimits("tenants: {t: {traceContent: no-thanks}}").status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tenants.t.traceContent: must be true or false")));
}

TEST(LlmLimitsTest, EntriesThatLimitNothing_AreLeftOut) {
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(R"(
models:
  free: {rpm: 0, tpm: 0, concurrency: 0}
  priced: {rpm: 0, price: {input: 1}}
tenants:
  acme:
    budget: {usd: 0, tokens: 0, period: month}
    models: {free: {rpm: 0}, other: {concurrency: 2}}
)");
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_TRUE(limits->models.empty());
  EXPECT_THAT(limits->prices, ElementsAre(Key("priced")));
  ASSERT_THAT(limits->tenants, ElementsAre(Key("acme")));
  EXPECT_EQ(limits->tenants.at("acme").budget, std::nullopt);
  EXPECT_THAT(limits->tenants.at("acme").models, ElementsAre(Key("other")));
  EXPECT_EQ(limits->tenants.at("acme").models.at("other").concurrency, 2);
}

TEST(LlmLimitsTest, WholeFloats_CountAsWholeNumbers) {
  absl::StatusOr<LlmLimits> limits =
      ParseLlmLimits("defaultOutputTokens: 4.0e3\ntenants: {t: {budget: {tokens: 2e7}}}\n");
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_EQ(limits->default_output_tokens, 4000);
  EXPECT_EQ(limits->tenants.at("t").budget->tokens, 20000000);
}

struct BadDocument {
  const char* text;
  const char* message;
};

class LlmLimitsErrorTest : public ::testing::TestWithParam<BadDocument> {};

TEST_P(LlmLimitsErrorTest, Malformed_InvalidArgumentNamingThePath) {
  EXPECT_THAT(ParseLlmLimits(GetParam().text),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, LlmLimitsErrorTest,
    ::testing::Values(
        // Syntax and shape.
        BadDocument{"models: {", "line"},
        BadDocument{"- models\n",
                    "the document must be a mapping of defaultOutputTokens, models "
                    "and tenants, got a list"},
        BadDocument{"models: [a]", "models: must be a mapping of model names"},
        BadDocument{"models: {m: 5}",
                    "models.m: must be a mapping of rpm, tpm, concurrency and price, got 5"},
        BadDocument{"tenants: fast", "tenants: must be a mapping of tenant names"},
        BadDocument{"tenants: {t: [1]}",
                    "tenants.t: must be a mapping of budget, models and traceContent"},
        BadDocument{"tenants: {t: {models: 1}}", "tenants.t.models: must be a mapping"},
        BadDocument{"tenants: {t: {budget: day}}",
                    "tenants.t.budget: must be a mapping of usd, tokens and period, got \"day\""},
        BadDocument{"models: {m: {price: 3}}",
                    "models.m.price: must be a mapping of input, output and cachedInput"},
        // Wrong types and ranges.
        BadDocument{"models: {gpt-4o: {rpm: fast}}",
                    R"(models.gpt-4o.rpm: must be a number >= 0, got "fast")"},
        BadDocument{"models: {m: {tpm: -1}}", "models.m.tpm: must be a number >= 0, got -1"},
        BadDocument{"models: {m: {rpm: '5'}}", R"(models.m.rpm: must be a number >= 0, got "5")"},
        BadDocument{"models: {m: {rpm: true}}", "models.m.rpm: must be a number >= 0, got true"},
        BadDocument{"models: {m: {rpm: }}", "models.m.rpm: must be a number >= 0, got null"},
        BadDocument{"models: {m: {rpm: +inf}}",
                    "models.m.rpm: must be a number >= 0, got infinity"},
        BadDocument{"models: {m: {tpm: 1e999}}",
                    "models.m.tpm: must be a number >= 0, got infinity"},
        BadDocument{"models: {m: {tpm: -nan}}", "models.m.tpm: must be a number >= 0, got NaN"},
        BadDocument{"models: {m: {concurrency: 2.5}}",
                    "models.m.concurrency: must be a whole number >= 0, got 2.5"},
        BadDocument{"models: {m: {concurrency: -3}}",
                    "models.m.concurrency: must be a whole number >= 0, got -3"},
        BadDocument{"models: {m: {concurrency: 3000000000}}",
                    "models.m.concurrency: must be at most 2147483647, got 3000000000"},
        BadDocument{"models: {m: {price: {input: -0.5}}}",
                    "models.m.price.input: must be a number >= 0, got -0.5"},
        BadDocument{"models: {m: {price: {output: x}}}",
                    R"(models.m.price.output: must be a number >= 0, got "x")"},
        BadDocument{"models: {m: {price: {cachedInput: -1}}}",
                    "models.m.price.cachedInput: must be a number >= 0, got -1"},
        BadDocument{"defaultOutputTokens: 0", "defaultOutputTokens: must be a whole number > 0"},
        BadDocument{"defaultOutputTokens: lots",
                    R"(defaultOutputTokens: must be a whole number > 0, got "lots")"},
        BadDocument{"defaultOutputTokens: 1e12", "defaultOutputTokens: must be at most 10000000"},
        BadDocument{"tenants: {t: {budget: {usd: -5}}}",
                    "tenants.t.budget.usd: must be a number >= 0, got -5"},
        BadDocument{"tenants: {t: {budget: {tokens: 1.5}}}",
                    "tenants.t.budget.tokens: must be a whole number >= 0, got 1.5"},
        BadDocument{"tenants: {t: {budget: {tokens: 1e30}}}",
                    "tenants.t.budget.tokens: must be at most 9223372036854775807"},
        BadDocument{"tenants: {t: {budget: {usd: 1, period: week}}}",
                    R"(tenants.t.budget.period: must be day or month (UTC), got "week")"},
        BadDocument{"tenants: {t: {budget: {usd: 1, period: Day}}}",
                    R"(tenants.t.budget.period: must be day or month (UTC), got "Day")"},
        BadDocument{"tenants: {t: {models: {m: {tpm: -2}}}}",
                    "tenants.t.models.m.tpm: must be a number >= 0, got -2"},
        // Unknown keys, at every level.
        BadDocument{"modles: {}",
                    "modles: unknown key; expected defaultOutputTokens, models or tenants"},
        BadDocument{"default_output_tokens: 5", "default_output_tokens: unknown key"},
        BadDocument{"models: {gpt-4o: {rmp: 5}}",
                    "models.gpt-4o.rmp: unknown key; expected rpm, tpm, concurrency or price"},
        BadDocument{"models: {m: {price: {cached_input: 1}}}",
                    "models.m.price.cached_input: unknown key; expected input, output or "
                    "cachedInput"},
        BadDocument{"tenants: {t: {budgt: {}}}",
                    "tenants.t.budgt: unknown key; expected budget, models or traceContent"},
        BadDocument{"tenants: {t: {budget: {dollars: 5}}}",
                    "tenants.t.budget.dollars: unknown key; expected usd, tokens or period"},
        BadDocument{"tenants: {t: {models: {m: {burst: 5}}}}",
                    "tenants.t.models.m.burst: unknown key; expected rpm, tpm or concurrency"},
        BadDocument{"tenants: {t: {models: {m: {price: {input: 1}}}}}",
                    "tenants.t.models.m.price: unknown key; expected rpm, tpm or concurrency "
                    "(set a model's price under models.<model>.price)"},
        // Names.
        BadDocument{"models: {'': {rpm: 1}}", "models: a model name is empty"},
        BadDocument{"tenants: {'': {}}", "tenants: a tenant name is empty"},
        BadDocument{"tenants: {t: {models: {'': {rpm: 1}}}}",
                    "tenants.t.models: a model name is empty"},
        BadDocument{"tenants: {'a/b': {}}", "tenants.a/b: a tenant is 1 to 64 letters"}),
    [](const ::testing::TestParamInfo<BadDocument>& info) {
      return absl::StrCat("Case", info.index);
    });

TEST(LlmLimitsTest, SeveralProblems_AllReportedOnePerLine) {
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(R"(
defaultOutputTokens: -1
models:
  gpt-4o: {rmp: 5, tpm: fast}
  mini: {price: {input: -1}}
tenants:
  acme:
    budget: {period: week}
    models: {gpt-4o: {concurrency: 1.5}}
)");
  ASSERT_THAT(limits, StatusIs(absl::StatusCode::kInvalidArgument));
  std::vector<std::string> lines = absl::StrSplit(limits.status().message(), '\n');
  EXPECT_THAT(
      lines,
      ElementsAre("defaultOutputTokens: must be a whole number > 0, got -1",
                  "models.gpt-4o.rmp: unknown key; expected rpm, tpm, concurrency or price",
                  R"(models.gpt-4o.tpm: must be a number >= 0, got "fast")",
                  "models.mini.price.input: must be a number >= 0, got -1",
                  R"(tenants.acme.budget.period: must be day or month (UTC), got "week")",
                  "tenants.acme.models.gpt-4o.concurrency: must be a whole number >= 0, got 1.5"));
}

TEST(LlmLimitsTest, ThousandsOfProblems_ReportTheFirstHundred) {
  std::string text = "models:\n";
  for (int i = 0; i < 250; ++i) absl::StrAppend(&text, "  m", i, ": {rpm: -1}\n");
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(text);
  ASSERT_THAT(limits, StatusIs(absl::StatusCode::kInvalidArgument));
  std::vector<std::string> lines = absl::StrSplit(limits.status().message(), '\n');
  ASSERT_EQ(lines.size(), 101u);
  EXPECT_EQ(lines.front(), "models.m0.rpm: must be a number >= 0, got -1");
  EXPECT_EQ(lines.back(), "... and 150 more problems; fix the ones above first");
}

TEST(LlmLimitsTest, TooManyModelsOrTenants_NamesTheLimit) {
  std::string models = "{";
  for (int i = 0; i <= 10'000; ++i) absl::StrAppend(&models, i == 0 ? "" : ",", "m", i, ": {}");
  absl::StrAppend(&models, "}");
  EXPECT_THAT(ParseLlmLimits(absl::StrCat("models: ", models)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("models: 10001 models is more than the limit of 10000")));
  EXPECT_THAT(ParseLlmLimits(absl::StrCat("tenants: ", models)),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tenants: 10001 tenants is more than the limit of 10000")));
  EXPECT_THAT(ParseLlmLimits(absl::StrCat("tenants: {t: {models: ", models, "}}")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("tenants.t.models: 10001 models is more than the limit")));
}

TEST(LlmLimitsTest, HugeDocument_RefusedBeforeParsing) {
  EXPECT_THAT(
      ParseLlmLimits(std::string((16 << 20) + 1, ' ')),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("more than the limit of 16777216")));
}

TEST(LlmLimitsTest, DeepDocument_RefusedAtTheDepthLimit) {
  EXPECT_THAT(ParseLlmLimits(std::string(200, '[') + std::string(200, ']')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("deeper than the limit")));
}

TEST(LlmLimitsTest, LongNames_AreCutInErrors) {
  // yaml-cpp refuses keys past 1,024 characters itself.
  const std::string name(1'000, 'x');
  absl::StatusOr<LlmLimits> limits =
      ParseLlmLimits(absl::StrCat("models: {", name, ": {rpm: -1}}"));
  ASSERT_THAT(limits, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_LT(limits.status().message().size(), 200u);
  EXPECT_THAT(limits.status().message(),
              HasSubstr("models." + std::string(64, 'x') + "[...].rpm: must be"));
}

TEST(LlmLimitsTest, LoadLlmLimitsFile_MissingFile_NamesThePathAndTheFlag) {
  EXPECT_THAT(LoadLlmLimitsFile("/nonexistent/limits.yaml"),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(::testing::StartsWith("/nonexistent/limits.yaml: "),
                             HasSubstr("--llm-limits"))));
}

TEST(LlmLimitsTest, LoadLlmLimitsFile_Directory_IsRefused) {
  testing::TempDir dir;
  EXPECT_THAT(
      LoadLlmLimitsFile(dir.path()),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(::testing::StartsWith(dir.path().string()), HasSubstr("is a directory"))));
}

TEST(LlmLimitsTest, LoadLlmLimitsFile_ReadsTheFile) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "limits.yaml";
  std::ofstream(path) << kExample;
  absl::StatusOr<LlmLimits> limits = LoadLlmLimitsFile(path);
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_EQ(limits->models.at("gpt-4o-mini").rpm, 500);
}

TEST(LlmLimitsTest, LoadLlmLimitsFile_EmptyFile_HasNoLimits) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "limits.yaml";
  std::ofstream{path};
  absl::StatusOr<LlmLimits> limits = LoadLlmLimitsFile(path);
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_TRUE(limits->models.empty());
}

TEST(LlmLimitsTest, LoadLlmLimitsFile_Problems_StartWithThePath) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "limits.yaml";
  std::ofstream(path) << "models: {m: {rpm: -1}}\n";
  EXPECT_THAT(
      LoadLlmLimitsFile(path),
      StatusIs(absl::StatusCode::kInvalidArgument,
               absl::StrCat(path.string(), ": models.m.rpm: must be a number >= 0, got -1")));
  std::ofstream(path) << "models: {m: {rpm: -1, tpm: -1}}\n";
  EXPECT_THAT(LoadLlmLimitsFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       absl::StrCat(path.string(), ":\nmodels.m.rpm: must be a number >= 0, got -1",
                                    "\nmodels.m.tpm: must be a number >= 0, got -1")));
}

TEST(LlmLimitsTest, LoadLlmLimitsFile_Oversized_StopsReadingAtTheLimit) {
  testing::TempDir dir;
  const std::filesystem::path path = dir.path() / "limits.yaml";
  std::ofstream(path) << std::string((16 << 20) + 100, '#');
  EXPECT_THAT(LoadLlmLimitsFile(path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(::testing::StartsWith(path.string()),
                             HasSubstr("larger than the limit of 16777216 bytes"))));
}

LlmLimits PricedLimits() {
  LlmLimits limits;
  limits.prices["mini"] = ModelPrice{.input = 0.15, .output = 0.60, .cached_input = 0.075};
  limits.prices["big"] = ModelPrice{.input = 2.5, .output = 10};
  return limits;
}

TEST(PriceCallTest, UnknownModel_HasNoPrice) {
  EXPECT_EQ(PriceCall(PricedLimits(), "unpriced", 1000, 1000, 0), std::nullopt);
  EXPECT_EQ(PriceCall(LlmLimits(), "mini", 1000, 1000, 0), std::nullopt);
}

TEST(PriceCallTest, CachedInput_PricedAtItsOwnRate) {
  // 600k fresh input at 0.15, 400k cached at 0.075, 200k output at 0.60.
  EXPECT_THAT(PriceCall(PricedLimits(), "mini", 1'000'000, 200'000, 400'000),
              Optional(DoubleEq(0.09 + 0.03 + 0.12)));
}

TEST(PriceCallTest, NoCachedInputPrice_CachedTokensCostAsInput) {
  EXPECT_THAT(PriceCall(PricedLimits(), "big", 1'000'000, 100'000, 400'000),
              Optional(DoubleEq(2.5 + 1.0)));
  EXPECT_THAT(PriceCall(PricedLimits(), "big", 2'000, 0, 0), Optional(DoubleEq(0.005)));
}

TEST(PriceCallTest, BadCounts_AreClamped) {
  // Cached tokens are part of the input: more than it counts as all of it.
  EXPECT_THAT(PriceCall(PricedLimits(), "mini", 1'000'000, 0, 5'000'000),
              Optional(DoubleEq(0.075)));
  EXPECT_THAT(PriceCall(PricedLimits(), "mini", -5, -5, -5), Optional(DoubleEq(0)));
  EXPECT_THAT(PriceCall(PricedLimits(), "mini", 1'000'000, 0, -5), Optional(DoubleEq(0.15)));
}

TEST(PriceCallTest, ParsedPrices_AreUsed) {
  absl::StatusOr<LlmLimits> limits = ParseLlmLimits(kExample);
  ASSERT_THAT(limits.status(), IsOk());
  EXPECT_THAT(PriceCall(*limits, "gpt-4o", 1'000'000, 1'000'000, 0), Optional(DoubleEq(12.5)));
  EXPECT_EQ(PriceCall(*limits, "gpt-4o-nano", 1, 1, 0), std::nullopt);
}

}  // namespace
}  // namespace taskboard::governance
