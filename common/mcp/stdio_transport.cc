#include "common/mcp/stdio_transport.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/mcp/json_rpc.h"

namespace taskboard::mcp {

void ServeLines(ServerSession& session, std::istream& in, std::ostream& out,
                size_t max_line_bytes) {
  std::vector<char> chunk(64 << 10);
  std::string line;
  bool too_long = false;
  while (true) {
    in.getline(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::streamsize got = in.gcount();
    // getline sets failbit when it filled the buffer before a newline: the
    // line goes on.
    const bool partial =
        in.fail() && !in.eof() && got == static_cast<std::streamsize>(chunk.size()) - 1;
    if (in.bad() || (in.fail() && !partial && got == 0)) break;
    if (!too_long) {
      // The newline was read (and counted) unless the chunk filled or the
      // input ended.
      const size_t text = static_cast<size_t>(partial || in.eof() ? got : got - 1);
      if (line.size() + text > max_line_bytes) {
        too_long = true;
        line.clear();
      } else {
        line.append(chunk.data(), text);
      }
    }
    if (partial) {
      in.clear();
      continue;
    }
    if (too_long) {
      out << EncodeJsonRpcError(Json(),
                                JsonRpcError{kParseError,
                                             absl::StrCat("a message longer than the limit of ",
                                                          max_line_bytes, " bytes was dropped"),
                                             Json()})
          << "\n"
          << std::flush;
    } else if (!absl::StripAsciiWhitespace(line).empty()) {
      if (std::optional<std::string> answer = session.Handle(line)) {
        out << *answer << "\n" << std::flush;
      }
    }
    line.clear();
    too_long = false;
    if (in.eof()) break;
  }
}

}  // namespace taskboard::mcp
