// docs/flow-dsl.md is checked, not trusted: every field the decoder accepts
// (AcceptedFlowFields, from the decoder's own reads) must be listed in the
// doc's table for the place it appears.

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "scheduler/flow/flow_fields.h"

namespace taskboard::flow {
namespace {

// Where each place of a flow document is documented: the start of the line
// that opens its section (a heading or a bold block title).
const std::map<std::string, std::string>& SectionOfPlace() {
  static const auto* const kSections = new std::map<std::string, std::string>{
      {"", "## 2. Top-level fields"},
      {"args.*", "## 2. Top-level fields"},
      {"budget", "## 2. Top-level fields"},
      {"phases[]", "## 4. Phases"},
      {"phases[].branches[]", "## 4. Phases"},
      {"phases[].approval", "## 4. Phases"},
      {"phases[].plan", "**`planAndExecute`**"},
      {"phases[].plan.stepExecutor", "**`supervisor`**"},
      {"phases[].supervise", "**`supervisor`**"},
      {"planAndExecute", "**`planAndExecute`**"},
      {"planAndExecute.stepExecutor", "**`supervisor`**"},
      {"supervisor", "**`supervisor`**"},
      {"board", "**`board`**"},
      {"board.tasks[]", "**`board`**"},
      {"flowPolicy", "## 13."},
      {"toolCache", "## 13."},
      {"toolCache.tools.*", "## 13."},
  };
  return *kSections;
}

bool OpensSection(absl::string_view line) {
  return absl::StartsWith(line, "#") || absl::StartsWith(line, "**`");
}

// The table rows of the section opened by the line starting with `title`,
// without header and separator rows.
std::vector<std::string> TableRows(const std::vector<std::string>& doc, absl::string_view title) {
  std::vector<std::string> rows;
  bool inside = false;
  for (size_t i = 0; i < doc.size(); ++i) {
    const std::string& line = doc[i];
    if (OpensSection(line)) {
      if (inside) break;
      inside = absl::StartsWith(line, title);
      continue;
    }
    const bool header = i + 1 < doc.size() && absl::StartsWith(doc[i + 1], "|---");
    if (inside && absl::StartsWith(line, "|") && !absl::StartsWith(line, "|---") && !header) {
      rows.push_back(line);
    }
  }
  return rows;
}

bool IsWordChar(char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` as a whole word somewhere in `text`.
bool HasWord(absl::string_view text, absl::string_view word) {
  for (size_t at = text.find(word); at != absl::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !IsWordChar(text[at - 1])) && (end == text.size() || !IsWordChar(text[end]))) {
      return true;
    }
  }
  return false;
}

std::vector<std::string> ReadDoc() {
  std::ifstream in(std::string(TASKBOARD_SOURCE_DIR) + "/docs/flow-dsl.md");
  std::stringstream text;
  text << in.rdbuf();
  return absl::StrSplit(text.str(), '\n');
}

TEST(FlowDslDoc, EveryAcceptedField_IsInTheTableOfItsPlace) {
  const std::vector<std::string> doc = ReadDoc();
  ASSERT_GT(doc.size(), 100u) << "docs/flow-dsl.md not found under " << TASKBOARD_SOURCE_DIR;
  for (const auto& [place, fields] : AcceptedFlowFields()) {
    auto section = SectionOfPlace().find(place);
    ASSERT_NE(section, SectionOfPlace().end())
        << "the decoder reads fields at '" << place << "' (" << absl::StrJoin(fields, ", ")
        << "), which no section of docs/flow-dsl.md is mapped to: document them there and add "
           "the place to SectionOfPlace in this test";
    const std::vector<std::string> rows = TableRows(doc, section->second);
    ASSERT_FALSE(rows.empty()) << "no table under '" << section->second << "' in docs/flow-dsl.md";
    for (const std::string& field : fields) {
      bool listed = false;
      for (const std::string& row : rows) listed = listed || HasWord(row, field);
      EXPECT_TRUE(listed) << "field '" << field << "' (at '" << place
                          << "') is accepted by the decoder but not in the table under '"
                          << section->second << "' in docs/flow-dsl.md: add a row for it";
    }
  }
}

TEST(FlowDslDoc, AcceptedFields_ReachEveryBlock) {
  // Guards the sample documents of AcceptedFlowFields: a block they stop
  // reaching would leave its fields unchecked.
  const auto fields = AcceptedFlowFields();
  for (const auto& [place, section] : SectionOfPlace()) {
    EXPECT_TRUE(fields.contains(place)) << "no fields recorded at '" << place << "'";
  }
  EXPECT_TRUE(fields.at("phases[]").contains("dependsOn"));
  EXPECT_TRUE(fields.at("flowPolicy").contains("maxTokens"));
  EXPECT_TRUE(fields.at("toolCache.tools.*").contains("cacheIf"));
  EXPECT_TRUE(fields.at("budget").contains("usd"));
  EXPECT_TRUE(fields.at("").contains("onBudget"));
  EXPECT_TRUE(fields.at("").contains("priority"));
}

}  // namespace
}  // namespace taskboard::flow
