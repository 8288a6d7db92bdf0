#include "worker/tools/tool_registry.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log/log.h"
#include "worker/tools/mcp/mcp_server_file.h"
#include "worker/tools/mcp/mcp_tool.h"

namespace taskboard::worker {

ToolRegistry::~ToolRegistry() {
  std::vector<std::shared_ptr<McpClient>> clients;
  {
    absl::MutexLock lock(&mu_);
    clients.swap(clients_);
  }
  for (const std::shared_ptr<McpClient>& client : clients) client->Stop();
}

absl::Status ToolRegistry::Add(std::unique_ptr<Tool> tool) {
  const std::string name = tool->name();
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = tools_.try_emplace(name);
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat("tool '", name, "' is defined twice: by ",
                                                 it->second.tool->source(), " and by ",
                                                 tool->source(), "; rename one of them"));
  }
  it->second.tool = std::move(tool);
  return absl::OkStatus();
}

std::vector<std::string> ToolRegistry::ReplaceGroup(const std::string& group,
                                                    std::vector<std::unique_ptr<Tool>> tools) {
  std::vector<std::string> left_out;
  absl::MutexLock lock(&mu_);
  absl::erase_if(tools_, [&group](const auto& entry) { return entry.second.group == group; });
  for (std::unique_ptr<Tool>& tool : tools) {
    const std::string name = tool->name();
    auto [it, inserted] = tools_.try_emplace(name);
    if (!inserted) {
      log::Warn("a tool name is taken; the MCP tool is not offered")
          .With("tool", name)
          .With("offered_by", it->second.tool->source())
          .With("not_offered_by", tool->source())
          .With("hint", "give the MCP server file a prefix");
      left_out.push_back(name);
      continue;
    }
    it->second = Entry{std::move(tool), group};
  }
  return left_out;
}

void ToolRegistry::AddMcpClient(std::shared_ptr<McpClient> client) {
  absl::MutexLock lock(&mu_);
  clients_.push_back(std::move(client));
}

absl::StatusOr<std::shared_ptr<const Tool>> ToolRegistry::Find(absl::string_view name) const {
  absl::MutexLock lock(&mu_);
  auto it = tools_.find(name);
  if (it == tools_.end()) {
    return absl::NotFoundError(absl::StrCat("unknown tool '", name, "' (this worker offers: ",
                                            absl::StrJoin(NamesLocked(), ", "), ")"));
  }
  return it->second.tool;
}

std::vector<v1::ToolDeclaration> ToolRegistry::Declarations() const {
  std::vector<v1::ToolDeclaration> declarations;
  {
    absl::MutexLock lock(&mu_);
    declarations.reserve(tools_.size());
    for (const auto& [name, entry] : tools_) declarations.push_back(entry.tool->declaration());
  }
  std::sort(declarations.begin(), declarations.end(),
            [](const v1::ToolDeclaration& a, const v1::ToolDeclaration& b) {
              return a.name() < b.name();
            });
  return declarations;
}

std::vector<std::string> ToolRegistry::Names() const {
  absl::MutexLock lock(&mu_);
  return NamesLocked();
}

std::vector<std::string> ToolRegistry::NamesLocked() const {
  std::vector<std::string> names;
  names.reserve(tools_.size());
  for (const auto& [name, entry] : tools_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// Starts `def`'s server, offers what it lists, and keeps its tools current.
absl::Status AddMcpServer(ToolRegistry& registry, McpServerDefinition def,
                          const McpOptions& options) {
  if (!options.start) return absl::OkStatus();
  auto client = std::make_shared<McpClient>(std::move(def), options.client);
  registry.AddMcpClient(client);
  const std::string group = client->definition().source.string();
  std::weak_ptr<McpClient> weak = client;
  auto offer = [&registry, weak, group](std::vector<McpToolInfo> listed) {
    if (std::shared_ptr<McpClient> alive = weak.lock()) {
      registry.ReplaceGroup(group, MakeMcpTools(alive, listed));
    }
  };
  absl::StatusOr<std::vector<McpToolInfo>> listed = client->ListTools();
  if (listed.ok()) {
    offer(*std::move(listed));
  } else {
    log::Error("an MCP server offers no tools until it can be listed; retrying in the background")
        .With("server", client->definition().name)
        .With("error", listed.status().message());
  }
  client->Watch(offer, /*list_now=*/!listed.ok());
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<ToolRegistry>> LoadToolRegistry(
    const std::filesystem::path& tools_dir, const BuiltinToolOptions& builtin_options,
    const CommandToolOptions& command_options, const McpOptions& mcp_options) {
  auto registry = std::make_unique<ToolRegistry>();
  for (std::unique_ptr<Tool>& tool : BuiltinTools(builtin_options)) {
    if (absl::Status added = registry->Add(std::move(tool)); !added.ok()) return added;
  }
  if (tools_dir.empty()) return registry;
  absl::StatusOr<std::vector<std::unique_ptr<Tool>>> tools =
      LoadCommandTools(tools_dir, command_options);
  if (!tools.ok()) return tools.status();
  for (std::unique_ptr<Tool>& tool : *tools) {
    if (absl::Status added = registry->Add(std::move(tool)); !added.ok()) return added;
  }
  absl::StatusOr<std::vector<McpServerDefinition>> servers = LoadMcpServerFiles(tools_dir);
  if (!servers.ok()) return servers.status();
  for (McpServerDefinition& server : *servers) {
    if (absl::Status added = AddMcpServer(*registry, std::move(server), mcp_options); !added.ok()) {
      return added;
    }
  }
  return registry;
}

}  // namespace taskboard::worker
