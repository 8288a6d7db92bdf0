#include "worker/tools/tool_registry.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace taskboard::worker {

absl::Status ToolRegistry::Add(std::unique_ptr<Tool> tool) {
  const std::string name = tool->name();
  auto [it, inserted] = tools_.try_emplace(name, nullptr);
  if (!inserted) {
    return absl::AlreadyExistsError(absl::StrCat("tool '", name, "' is defined twice: by ",
                                                 it->second->source(), " and by ", tool->source(),
                                                 "; rename one of them"));
  }
  it->second = std::move(tool);
  return absl::OkStatus();
}

absl::StatusOr<const Tool*> ToolRegistry::Find(absl::string_view name) const {
  auto it = tools_.find(name);
  if (it == tools_.end()) {
    return absl::NotFoundError(absl::StrCat(
        "unknown tool '", name, "' (this worker offers: ", absl::StrJoin(Names(), ", "), ")"));
  }
  return it->second.get();
}

std::vector<v1::ToolDeclaration> ToolRegistry::Declarations() const {
  std::vector<v1::ToolDeclaration> declarations;
  declarations.reserve(tools_.size());
  for (const auto& [name, tool] : tools_) declarations.push_back(tool->declaration());
  std::sort(declarations.begin(), declarations.end(),
            [](const v1::ToolDeclaration& a, const v1::ToolDeclaration& b) {
              return a.name() < b.name();
            });
  return declarations;
}

std::vector<std::string> ToolRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(tools_.size());
  for (const auto& [name, tool] : tools_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<std::unique_ptr<ToolRegistry>> LoadToolRegistry(
    const std::filesystem::path& tools_dir, const BuiltinToolOptions& builtin_options,
    const CommandToolOptions& command_options) {
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
  return registry;
}

}  // namespace taskboard::worker
