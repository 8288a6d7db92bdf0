#ifndef TASKBOARD_TOOLS_CLI_TEXT_TABLE_H_
#define TASKBOARD_TOOLS_CLI_TEXT_TABLE_H_

// Plain-text tables for listings (`runs`, `flows list`, the task table of
// `show`): a header row, left-aligned columns as wide as their widest cell in
// terminal columns, two spaces apart, no trailing spaces.

#include <ostream>
#include <string>
#include <vector>

namespace taskboard::cli {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

  // Missing cells print empty; cells are one line (newlines become spaces).
  void AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

  // `max_width` > 0 cuts each line to that many columns.
  void Print(std::ostream& out, int max_width = 0) const;

 private:
  std::vector<std::vector<std::string>> rows_;  // the header first
};

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TEXT_TABLE_H_
