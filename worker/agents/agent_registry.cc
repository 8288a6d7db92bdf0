#include "worker/agents/agent_registry.h"

#include <algorithm>
#include <system_error>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "worker/agents/llm_agent.h"
#include "worker/agents/noop_agent.h"

namespace taskboard::worker {
namespace {

constexpr absl::string_view kBuiltInNoop = "noop";

absl::StatusOr<std::vector<std::filesystem::path>> AgentFilesIn(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) {
    return absl::NotFoundError(absl::StrCat("agents directory '", dir.string(),
                                            "' does not exist: pass --agents a directory of agent "
                                            "files (*.json, *.yaml, *.md)"));
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("agents directory '", dir.string(), "' is not a directory"));
  }
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsAgentFile(it->path()) && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot list agents directory '", dir.string(), "': ", ec.message()));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Agent>> CreateAgent(AgentDefinition definition,
                                                   const CommandAgentOptions& options) {
  switch (definition.type) {
    case AgentType::kCommand:
      return std::make_unique<CommandAgent>(std::move(definition), options);
    case AgentType::kNoop:
      return std::make_unique<NoopAgent>(std::move(definition.name),
                                         std::move(definition.description));
    case AgentType::kLlm:
      return std::make_unique<LlmAgent>(std::move(definition));
  }
  return absl::InternalError(absl::StrCat("agent '", definition.name, "' (",
                                          definition.source.string(), ") has an unknown type"));
}

absl::StatusOr<std::unique_ptr<AgentRegistry>> AgentRegistry::Load(
    const std::filesystem::path& dir, const CommandAgentOptions& options) {
  std::unique_ptr<AgentRegistry> registry(new AgentRegistry());
  registry->agents_.emplace(kBuiltInNoop,
                            std::make_unique<NoopAgent>(std::string(kBuiltInNoop),
                                                        "Built in: returns its prompt at once"));
  if (dir.empty()) return registry;

  absl::StatusOr<std::vector<std::filesystem::path>> files = AgentFilesIn(dir);
  if (!files.ok()) return files.status();
  absl::flat_hash_map<std::string, std::filesystem::path> defined_in;
  for (const std::filesystem::path& file : *files) {
    absl::StatusOr<AgentDefinition> definition = LoadAgentFile(file);
    if (!definition.ok()) return definition.status();
    const std::string name = definition->name;
    if (name == kBuiltInNoop) {
      return absl::InvalidArgumentError(absl::StrCat("agent file ", file.string(),
                                                     ": the name 'noop' is taken by the built-in "
                                                     "noop agent; choose another name"));
    }
    if (auto [it, inserted] = defined_in.emplace(name, file); !inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("agent name '", name, "' is defined twice: in ", it->second.string(),
                       " and in ", file.string(), "; rename one of them"));
    }
    absl::StatusOr<std::unique_ptr<Agent>> agent = CreateAgent(*std::move(definition), options);
    if (agent.ok()) {
      registry->agents_.emplace(name, *std::move(agent));
    } else {
      registry->unavailable_.emplace_back(name, agent.status());
    }
  }
  return registry;
}

absl::StatusOr<const Agent*> AgentRegistry::Find(absl::string_view name) const {
  if (auto it = agents_.find(name); it != agents_.end()) return it->second.get();
  for (const auto& [unavailable_name, status] : unavailable_) {
    if (unavailable_name == name) return status;
  }
  std::vector<std::string> names;
  for (const v1::AgentInfo& info : Advertised()) names.push_back(info.name());
  return absl::NotFoundError(absl::StrCat("this worker has no agent '", name,
                                          "' (it offers: ", absl::StrJoin(names, ", "), ")"));
}

std::vector<v1::AgentInfo> AgentRegistry::Advertised() const {
  std::vector<v1::AgentInfo> infos;
  for (const auto& [name, agent] : agents_) infos.push_back(agent->info());
  std::sort(infos.begin(), infos.end(),
            [](const v1::AgentInfo& a, const v1::AgentInfo& b) { return a.name() < b.name(); });
  return infos;
}

}  // namespace taskboard::worker
