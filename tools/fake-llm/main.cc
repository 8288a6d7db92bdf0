// `fake-llm`: a deterministic OpenAI-compatible chat completions server for
// tests and demos, answering from a script (tools/fake-llm/README.md).
//
//   fake-llm --script FILE [--listen 127.0.0.1:0] [--port-file PATH] [--log FILE]
//            [--rpm N] [--tpm N]
//
// Prints the bound port on stdout (one line) and writes it to --port-file
// once serving, so tests can listen on port 0. Exit 2: bad flags or script.

#include <signal.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "common/command_line.h"
#include "common/files.h"
#include "common/json_depth_flag.h"
#include "tools/fake-llm/fake_llm_server.h"
#include "tools/fake-llm/rate_limits.h"
#include "tools/fake-llm/script.h"

namespace {

// Each problem on its own line, prefixed so it reads like a compiler error.
int ReportScriptErrors(const std::string& path, const absl::Status& status) {
  for (absl::string_view line : absl::StrSplit(status.message(), '\n')) {
    std::cerr << "fake-llm: " << path << ": " << line << "\n";
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string script_path;
  std::string listen = "127.0.0.1:0";
  std::string port_file;
  std::string log_path;
  // Text, checked below like --listen, so a bad value gets our message.
  std::string rpm = "0";
  std::string tpm = "0";
  CLI::App app{"fake-llm: a scripted OpenAI-compatible chat completions server"};
  app.add_option("--script", script_path, "Rules file (YAML or JSON), see tools/fake-llm/README.md")
      ->required();
  app.add_option("--listen", listen, "host:port to listen on (port 0: any free)")
      ->capture_default_str();
  app.add_option("--port-file", port_file, "Write the bound port here once serving");
  app.add_option("--log", log_path, "Append every request here as one JSON line");
  app.add_option("--rpm", rpm,
                 "Requests per minute before answering 429 with Retry-After (0: unlimited)")
      ->type_name("NUMBER")
      ->capture_default_str();
  app.add_option("--tpm", tpm,
                 "Tokens per minute (prompt + completion of each answer's usage) before "
                 "answering 429 (0: unlimited)")
      ->type_name("NUMBER")
      ->capture_default_str();
  taskboard::AddJsonDepthFlag(app);
  if (std::optional<int> exit_code = taskboard::ParseCommandLine(app, argc, argv)) {
    return *exit_code;
  }

  taskboard::fake_llm::FakeLlmServerOptions options;
  options.log_path = log_path;
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || !absl::SimpleAtoi(listen.substr(colon + 1), &options.port) ||
      options.port < 0 || options.port > 65535) {
    std::cerr << "fake-llm: --listen " << listen
              << ": expected host:port such as 127.0.0.1:0 (port 0: any free)\n";
    return 2;
  }
  options.host = listen.substr(0, colon);
  for (auto [flag, text, limit] : {std::tuple{"--rpm", &rpm, &options.limits.requests_per_minute},
                                   std::tuple{"--tpm", &tpm, &options.limits.tokens_per_minute}}) {
    absl::StatusOr<double> parsed = taskboard::fake_llm::ParsePerMinuteLimit(flag, *text);
    if (!parsed.ok()) {
      std::cerr << "fake-llm: " << parsed.status().message() << "\n";
      return 2;
    }
    *limit = *parsed;
  }

  if (!std::ifstream(script_path).good()) {
    std::cerr << "fake-llm: " << script_path << ": cannot read the script file (check the path)\n";
    return 2;
  }
  absl::StatusOr<taskboard::fake_llm::Script> script =
      taskboard::fake_llm::ParseScriptText(taskboard::ReadFileOrEmpty(script_path));
  if (!script.ok()) return ReportScriptErrors(script_path, script.status());

  // Block the shutdown signals in every thread; main waits for them below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<std::unique_ptr<taskboard::fake_llm::FakeLlmServer>> server =
      taskboard::fake_llm::FakeLlmServer::Start(*std::move(script), options);
  if (!server.ok()) {
    std::cerr << "fake-llm: " << server.status().message() << "\n";
    return 1;
  }
  const int port = (*server)->port();
  std::cout << port << std::endl;
  std::cerr << "fake-llm: serving " << script_path << " at http://" << options.host << ":" << port
            << "/v1\n";
  if (!port_file.empty() &&
      !taskboard::WriteFileAtomically(port_file, std::to_string(port) + "\n")) {
    std::cerr << "fake-llm: cannot write the port file " << port_file << "\n";
    return 1;
  }
  int received = 0;
  sigwait(&signals, &received);
  (*server)->Shutdown();
  return 0;
}
