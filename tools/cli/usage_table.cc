#include "tools/cli/usage_table.h"

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/saturating_add.h"
#include "tools/cli/display_format.h"
#include "tools/cli/text_table.h"

namespace taskboard::cli {
namespace {

// What the rows of one line add up to.
struct Totals {
  int64_t requests = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cache_read_tokens = 0;
  double cost_usd = 0;
  int64_t rate_limited = 0;

  void Add(const v1::UsageRow& row) {
    // Saturating, as the scheduler sums the rows themselves.
    requests = SaturatingAdd(requests, row.requests());
    input_tokens = SaturatingAdd(input_tokens, row.usage().input_tokens());
    output_tokens = SaturatingAdd(output_tokens, row.usage().output_tokens());
    cache_read_tokens = SaturatingAdd(cache_read_tokens, row.usage().cache_read_tokens());
    cost_usd += row.usage().cost_usd();
    rate_limited = SaturatingAdd(rate_limited, row.rate_limited());
  }
};

// The columns that name a line, in order.
std::vector<std::string> KeyHeader(UsageGrouping grouping) {
  switch (grouping) {
    case UsageGrouping::kDay:
      return {"TENANT", "MODEL", "DAY"};
    case UsageGrouping::kModel:
      return {"MODEL"};
    case UsageGrouping::kTenant:
      return {"TENANT"};
    case UsageGrouping::kTenantModel:
      break;
  }
  return {"TENANT", "MODEL"};
}

// An empty tenant is a scheduler without tenants (no auth); an empty model
// one the worker could not name. "-" keeps the columns readable.
std::string Named(const std::string& name) { return name.empty() ? "-" : name; }

std::vector<std::string> KeyOf(const v1::UsageRow& row, UsageGrouping grouping) {
  switch (grouping) {
    case UsageGrouping::kDay:
      return {Named(row.tenant()), Named(row.model()), row.day()};
    case UsageGrouping::kModel:
      return {Named(row.model())};
    case UsageGrouping::kTenant:
      return {Named(row.tenant())};
    case UsageGrouping::kTenantModel:
      break;
  }
  return {Named(row.tenant()), Named(row.model())};
}

std::vector<std::string> Cells(std::vector<std::string> key, const Totals& totals) {
  key.push_back(absl::StrCat(totals.requests));
  key.push_back(FormatTokens(totals.input_tokens));
  key.push_back(FormatTokens(totals.output_tokens));
  key.push_back(FormatTokens(totals.cache_read_tokens));
  // No price for the model anywhere: "-" rather than a misleading $0.
  key.push_back(totals.cost_usd > 0 ? FormatCost(totals.cost_usd) : "-");
  key.push_back(absl::StrCat(totals.rate_limited));
  return key;
}

}  // namespace

std::optional<UsageGrouping> UsageGroupingFromName(absl::string_view name) {
  if (name.empty()) return UsageGrouping::kTenantModel;
  if (name == "day") return UsageGrouping::kDay;
  if (name == "model") return UsageGrouping::kModel;
  if (name == "tenant") return UsageGrouping::kTenant;
  return std::nullopt;
}

void PrintUsageTable(const v1::GetUsageResponse& usage, UsageGrouping grouping, int width,
                     std::ostream& out) {
  // Ordered by key: a tenant's models together, a model's days in order.
  std::map<std::vector<std::string>, Totals> lines;
  Totals total;
  for (const v1::UsageRow& row : usage.rows()) {
    lines[KeyOf(row, grouping)].Add(row);
    total.Add(row);
  }
  std::vector<std::string> header = KeyHeader(grouping);
  const size_t key_columns = header.size();
  for (const char* column : {"REQUESTS", "INPUT", "OUTPUT", "CACHED", "COST", "429s"}) {
    header.push_back(column);
  }
  TextTable table(std::move(header));
  for (const auto& [key, totals] : lines) table.AddRow(Cells(key, totals));
  std::vector<std::string> total_key(key_columns);
  total_key[0] = "TOTAL";
  table.AddRow(Cells(std::move(total_key), total));
  table.Print(out, width);
}

}  // namespace taskboard::cli
