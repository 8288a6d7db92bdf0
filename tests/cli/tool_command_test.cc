// `taskboard tool` against a scripted worker socket: what it sends, what it
// prints, and its exit codes.

#include "tools/cli/tool_command.h"

#include <stdlib.h>
#include <sys/socket.h>

#include <sstream>
#include <string>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "common/json.h"
#include "common/unix_socket.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/cli/cli_runner.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::cli {
namespace {

using ::taskboard::testing::TempDir;
using ::testing::HasSubstr;

// Answers one connection's request line with a fixed response line.
class FakeWorkerSocket {
 public:
  explicit FakeWorkerSocket(std::string response) : response_(std::move(response)) {
    absl::StatusOr<UniqueFd> listener = ListenUnixSocket(path());
    EXPECT_TRUE(listener.ok()) << listener.status();
    listener_ = *std::move(listener);
    thread_ = std::thread([this] {
      UniqueFd fd(accept(listener_.get(), nullptr, nullptr));
      if (!fd.valid()) return;
      LineReader reader(fd.get(), 1 << 20);
      absl::StatusOr<std::optional<std::string>> line = reader.Next(absl::Seconds(10));
      {
        absl::MutexLock lock(&mu_);
        if (line.ok() && line->has_value()) request_ = **line;
      }
      (void)WriteAll(fd.get(), response_ + "\n");
    });
  }
  ~FakeWorkerSocket() {
    shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
  }

  std::string path() const { return (dir_.path() / "tools.sock").string(); }
  Json request() {
    absl::MutexLock lock(&mu_);
    return request_.empty() ? Json() : Json::parse(request_);
  }

 private:
  TempDir dir_;
  const std::string response_;
  UniqueFd listener_;
  std::thread thread_;
  absl::Mutex mu_;
  std::string request_ ABSL_GUARDED_BY(mu_);
};

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunToolCommand(const ToolOptions& options, const std::string& stdin_text = "") {
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  const int code = RunTool(options, in, out, err);
  return {code, out.str(), err.str()};
}

ToolOptions Options(const std::string& socket, std::optional<std::string> args) {
  return {.tool = "read_file", .args = std::move(args), .socket_path = socket, .token = "t0k"};
}

TEST(ToolCommand, Result_PrintedAsOneJsonLine) {
  FakeWorkerSocket worker(R"({"ok":true,"result":{"content":"hi"},"cached":true})");
  const Outcome outcome = RunToolCommand(Options(worker.path(), R"({"path": "a.txt"})"));
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_EQ(outcome.out, "{\"content\":\"hi\"}\n");
  EXPECT_EQ(worker.request(),
            Json::parse(R"({"token":"t0k","tool":"read_file","args":{"path":"a.txt"}})"));
}

TEST(ToolCommand, ToolError_OnStderrExit1) {
  FakeWorkerSocket worker(R"({"ok":false,"error":"file 'a.txt' does not exist"})");
  const Outcome outcome = RunToolCommand(Options(worker.path(), R"({"path": "a.txt"})"));
  EXPECT_EQ(outcome.code, 1);
  EXPECT_EQ(outcome.out, "");
  EXPECT_EQ(outcome.err, "taskboard tool read_file: file 'a.txt' does not exist\n");
}

TEST(ToolCommand, Dash_ReadsArgsFromStdin) {
  FakeWorkerSocket worker(R"({"ok":true,"result":1})");
  EXPECT_EQ(RunToolCommand(Options(worker.path(), "-"), R"({"path": "b.txt"})").code, 0);
  EXPECT_EQ(worker.request()["args"], Json::parse(R"({"path": "b.txt"})"));
}

TEST(ToolCommand, NoArgs_SendsAnEmptyObject) {
  FakeWorkerSocket worker(R"({"ok":true,"result":1})");
  EXPECT_EQ(RunToolCommand(Options(worker.path(), std::nullopt), "ignored stdin").code, 0);
  EXPECT_EQ(worker.request()["args"], Json::object());
}

TEST(ToolCommand, ArgsNotAnObject_UsageErrorExit2) {
  const Outcome outcome = RunToolCommand(Options("/nonexistent/tools.sock", "[1, 2]"));
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("the arguments must be a JSON object"));
}

TEST(ToolCommand, WorkerUnreachable_Exit2) {
  const Outcome outcome = RunToolCommand(Options("/nonexistent/tools.sock", "{}"));
  EXPECT_EQ(outcome.code, 2);
  EXPECT_THAT(outcome.err, HasSubstr("taskboard tool read_file: cannot reach the worker"));
}

TEST(ToolCommand, OutsideAnAgent_ExplainsExit2) {
  unsetenv("TASKBOARD_TOOL_SOCKET");
  unsetenv("TASKBOARD_TASK_TOKEN");
  const testing::CliResult result = testing::Cli({"tool", "read_file", R"({"path":"a"})"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("only works inside an agent run by a Taskboard worker"));
}

}  // namespace
}  // namespace taskboard::cli
