#include "tools/cli/text_table.h"

#include <algorithm>

#include "absl/strings/str_replace.h"
#include "tools/cli/display_width.h"

namespace taskboard::cli {

void TextTable::Print(std::ostream& out, int max_width) const {
  std::vector<int> widths;
  for (const auto& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string cell = absl::StrReplaceAll(row[i], {{"\r", " "}, {"\n", " "}});
      line += i + 1 < row.size() ? PadToWidth(cell, widths[i] + 2) : cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << FitToWidth(line, max_width) << "\n";
  }
}

}  // namespace taskboard::cli
