#ifndef TASKBOARD_TESTS_TESTING_FAKE_LLM_H_
#define TASKBOARD_TESTS_TESTING_FAKE_LLM_H_

// tools/fake-llm as a child process for end-to-end tests: started on port 0
// with a script, stopped with the object, and the requests it received read
// back from its log, so a test can assert what the model was told.

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/child_process.h"
#include "common/json.h"

namespace taskboard::testing {

class FakeLlm {
 public:
  // Starts fake-llm on the script file `script_path`, keeping its port file,
  // output and request log in `dir`; `flags` go on its command line (e.g.
  // {"--rpm", "600"}).
  static absl::StatusOr<std::unique_ptr<FakeLlm>> Start(const std::filesystem::path& dir,
                                                        const std::string& script_path,
                                                        std::vector<std::string> flags = {});
  // Writes `script` (YAML) into `dir` and starts on it.
  static absl::StatusOr<std::unique_ptr<FakeLlm>> StartWithScript(
      const std::filesystem::path& dir, const std::string& script,
      std::vector<std::string> flags = {});

  // GET /stats: {requests, admitted, rate_limited}.
  absl::StatusOr<Json> Stats() const;

  int port() const { return port_; }
  // What an llm agent's `baseUrl` names: http://127.0.0.1:PORT/v1
  std::string base_url() const;

  // Every request-log entry ({seq, path, rule, rule_name, status, time_ms,
  // request}) in arrival order.
  std::vector<Json> LogEntries() const;
  // The request bodies alone, in arrival order.
  std::vector<Json> Requests() const;

 private:
  FakeLlm(std::unique_ptr<ChildProcess> process, std::filesystem::path log, int port)
      : process_(std::move(process)), log_(std::move(log)), port_(port) {}

  std::unique_ptr<ChildProcess> process_;
  std::filesystem::path log_;
  int port_;
};

// The text of an llm agent file named `name` pointed at `base_url` with
// model `fake-model`; `fields` are extra front-matter lines (each ending in
// a newline), `system` its system prompt.
std::string LlmAgentFileText(const std::string& name, const std::string& base_url,
                             const std::string& fields, const std::string& system);

}  // namespace taskboard::testing

#endif  // TASKBOARD_TESTS_TESTING_FAKE_LLM_H_
