#ifndef TASKBOARD_TOOLS_CLI_TERMINAL_H_
#define TASKBOARD_TOOLS_CLI_TERMINAL_H_

// What the CLI knows about where it writes: whether the live run view may
// redraw in place, use colours, and how wide a line may be. Detected once in
// main; tests construct it directly so their output never depends on how the
// test runner was started.

namespace taskboard::cli {

struct TerminalInfo {
  bool tty = false;    // a terminal: the live view redraws in place
  bool color = false;  // ANSI colours allowed
  int width = 0;       // columns a line may take; 0 = no limit
  int height = 0;      // rows of the terminal; 0 = unknown
};

// For file descriptor `fd`: a terminal when isatty; colours on a terminal
// unless NO_COLOR is set (https://no-color.org) or TERM is "dumb"; the width
// from the terminal, else COLUMNS, else 100 on a terminal and no limit
// elsewhere (logs keep whole lines); the height from the terminal (else LINES).
TerminalInfo DetectTerminal(int fd);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_TERMINAL_H_
