#ifndef TASKBOARD_SCHEDULER_WEB_CONSOLE_ASSETS_H_
#define TASKBOARD_SCHEDULER_WEB_CONSOLE_ASSETS_H_

// The web console's files (web/console, docs/console.md), compiled into the
// scheduler by cmake/embed_assets.cmake from esbuild's output.

#include <span>
#include <string_view>

namespace taskboard::web {

struct ConsoleAsset {
  // "/index.html", "/app.js", ...
  std::string_view path;
  std::string_view body;
};

// Empty when the build had no console (web/console's packages were not
// installed: scripts/install-deps.sh installs them).
std::span<const ConsoleAsset> ConsoleAssets();

}  // namespace taskboard::web

#endif  // TASKBOARD_SCHEDULER_WEB_CONSOLE_ASSETS_H_
