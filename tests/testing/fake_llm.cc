#include "tests/testing/fake_llm.h"

#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "httplib.h"
#include "tests/testing/cluster.h"

namespace taskboard::testing {

absl::StatusOr<std::unique_ptr<FakeLlm>> FakeLlm::Start(const std::filesystem::path& dir,
                                                        const std::string& script_path,
                                                        std::vector<std::string> flags) {
  const std::filesystem::path log = dir / "llm-requests.jsonl";
  const std::string port_file = (dir / "llm.port").string();
  std::vector<std::string> argv = {BinaryPath("fake-llm"),
                                   "--script",
                                   script_path,
                                   "--port-file",
                                   port_file,
                                   "--log",
                                   log.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  absl::StatusOr<std::unique_ptr<ChildProcess>> process =
      ChildProcess::Spawn(argv, (dir / "fake-llm.log").string());
  if (!process.ok()) return process.status();
  absl::StatusOr<int> port = WaitForPortFile(**process, port_file, 30'000);
  if (!port.ok()) return port.status();
  return std::unique_ptr<FakeLlm>(new FakeLlm(*std::move(process), log, *port));
}

absl::StatusOr<std::unique_ptr<FakeLlm>> FakeLlm::StartWithScript(const std::filesystem::path& dir,
                                                                  const std::string& script,
                                                                  std::vector<std::string> flags) {
  const std::filesystem::path path = dir / "script.yaml";
  std::ofstream(path) << script;
  return Start(dir, path.string(), std::move(flags));
}

absl::StatusOr<Json> FakeLlm::Stats() const {
  httplib::Client client("127.0.0.1", port_);
  httplib::Result result = client.Get("/stats");
  if (!result || result->status != 200) {
    return absl::UnavailableError(
        absl::StrCat("fake-llm on port ", port_, " did not answer /stats"));
  }
  return ParseJson(result->body);
}

std::string FakeLlm::base_url() const { return absl::StrCat("http://127.0.0.1:", port_, "/v1"); }

std::vector<Json> FakeLlm::LogEntries() const {
  std::vector<Json> entries;
  std::ifstream in(log_);
  for (std::string line; std::getline(in, line);) {
    absl::StatusOr<Json> entry = ParseJson(line);
    if (entry.ok()) entries.push_back(*std::move(entry));
  }
  return entries;
}

std::vector<Json> FakeLlm::Requests() const {
  std::vector<Json> requests;
  for (Json& entry : LogEntries()) requests.push_back(std::move(entry["request"]));
  return requests;
}

std::string LlmAgentFileText(const std::string& name, const std::string& base_url,
                             const std::string& fields, const std::string& system) {
  return absl::StrCat("---\nname: ", name, "\ntype: llm\nmodel: fake-model\nbaseUrl: ", base_url,
                      "\n", fields, "---\n", system, "\n");
}

}  // namespace taskboard::testing
