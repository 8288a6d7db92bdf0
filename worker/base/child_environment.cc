#include "worker/base/child_environment.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "worker/base/secret_environment.h"

namespace taskboard::worker {
namespace {

// An LLM key the worker took out of its environment (secret_environment.h)
// still reaches a program whose file names it in passEnv: the operator chose
// to give it that key. The worker token never does.
void CopyFromWorker(absl::string_view name, std::map<std::string, std::string>& vars) {
  if (name == kWorkerTokenVariable) return;
  const std::string key(name);
  if (std::string value = SecretOrEnvironment(key);
      !value.empty() || std::getenv(key.c_str()) != nullptr) {
    vars[key] = std::move(value);
  }
}

bool IsVariableName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace

std::map<std::string, std::string> ChildEnvironment(const std::vector<std::string>& pass_through) {
  std::map<std::string, std::string> vars;
  for (absl::string_view name : kBaseVariables) CopyFromWorker(name, vars);
  for (const std::string& name : pass_through) CopyFromWorker(name, vars);
  return vars;
}

absl::Status CheckPassThroughName(absl::string_view name) {
  if (!IsVariableName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", name, "' is not a variable name (letters, digits and '_')"));
  }
  if (name == kWorkerTokenVariable) {
    return absl::InvalidArgumentError(
        absl::StrCat(name,
                     " is the worker's own token and is never passed to agents or tools; give the "
                     "program a token of its own through `env`"));
  }
  return absl::OkStatus();
}

std::vector<std::string> EnvironmentStrings(const std::map<std::string, std::string>& vars) {
  std::vector<std::string> env;
  env.reserve(vars.size());
  for (const auto& [name, value] : vars) env.push_back(absl::StrCat(name, "=", value));
  return env;
}

}  // namespace taskboard::worker
