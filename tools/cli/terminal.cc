#include "tools/cli/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/numbers.h"

namespace taskboard::cli {
namespace {

bool EnvSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0';
}

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  int parsed = 0;
  return value != nullptr && absl::SimpleAtoi(value, &parsed) && parsed > 0 ? parsed : fallback;
}

}  // namespace

TerminalInfo DetectTerminal(int fd) {
  TerminalInfo info;
  info.tty = isatty(fd) == 1;
  if (!info.tty) return info;
  const char* term = std::getenv("TERM");
  info.color = !EnvSet("NO_COLOR") && !(term != nullptr && std::string(term) == "dumb");
  winsize size{};
  const bool sized = ioctl(fd, TIOCGWINSZ, &size) == 0;
  info.width = sized && size.ws_col > 0 ? size.ws_col : EnvInt("COLUMNS", 100);
  info.height = sized && size.ws_row > 0 ? size.ws_row : EnvInt("LINES", 0);
  return info;
}

}  // namespace taskboard::cli
