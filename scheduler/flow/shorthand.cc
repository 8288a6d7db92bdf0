#include "scheduler/flow/shorthand.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace taskboard::flow {
namespace {

bool NonEmptyArray(const Json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_array() && !it->empty();
}

// A chain step or tasks entry: a plain string is shorthand for {task: s}.
Json StepObject(const Json& entry, const Json* default_agent) {
  Json step = entry.is_string() ? Json{{"task", entry}} : entry;
  if (step.is_object() && default_agent != nullptr && !step.contains("agent")) {
    step["agent"] = *default_agent;
  }
  return step;
}

}  // namespace

bool HasShorthand(const Json& doc) {
  if (!doc.is_object() || doc.contains("phases")) return false;
  for (const char* key : {"chain", "tasks", "task", "agent"}) {
    if (doc.contains(key)) return true;
  }
  return false;
}

DesugaredFlow DesugarShorthand(const Json& doc) {
  DesugaredFlow out{doc, {}};
  if (!doc.is_object() || doc.contains("phases")) return out;

  Json& flow = out.doc;
  const Json* default_agent = nullptr;
  Json agent_copy;
  if (auto it = doc.find("agent"); it != doc.end()) {
    agent_copy = *it;
    default_agent = &agent_copy;
  }
  Json phases = Json::array();
  const char* default_name = nullptr;

  if (NonEmptyArray(doc, "chain")) {
    const Json& chain = doc["chain"];
    for (size_t i = 0; i < chain.size(); ++i) {
      Json step = StepObject(chain[i], default_agent);
      const std::string phase_path = absl::StrCat("phases[", i, "]");
      if (step.is_object()) {
        Json phase = {{"id", absl::StrCat("step", i + 1)}};
        // A step after an unusable one (reported at chain[i-1]) gets no
        // dependency on it, which would only add an "unknown phase" error.
        if (i > 0 && StepObject(chain[i - 1], nullptr).is_object()) {
          phase["dependsOn"] = Json::array({absl::StrCat("step", i)});
        }
        for (auto& [key, value] : step.items()) phase[key] = value;
        if (i + 1 == chain.size()) phase["final"] = true;
        step = std::move(phase);
      }
      phases.push_back(std::move(step));
      if (chain[i].is_string()) {
        out.path_aliases.emplace_back(phase_path + ".task", absl::StrCat("chain[", i, "]"));
      }
      out.path_aliases.emplace_back(phase_path, absl::StrCat("chain[", i, "]"));
    }
    default_name = "chain";
  } else if (NonEmptyArray(doc, "tasks")) {
    Json branches = Json::array();
    for (const Json& entry : doc["tasks"]) branches.push_back(StepObject(entry, default_agent));
    phases.push_back(
        {{"id", "parallel"}, {"type", "parallel"}, {"branches", branches}, {"final", true}});
    out.path_aliases.emplace_back("phases[0].branches", "tasks");
    default_name = "parallel";
  } else if (auto it = doc.find("task");
             it != doc.end() && !(it->is_string() && it->get_ref<const std::string&>().empty())) {
    Json phase = {{"id", "main"}, {"type", "agent"}, {"task", *it}, {"final", true}};
    if (default_agent != nullptr) phase["agent"] = *default_agent;
    phases.push_back(std::move(phase));
    out.path_aliases.emplace_back("phases[0].task", "task");
    out.path_aliases.emplace_back("phases[0].agent", "agent");
    out.path_aliases.emplace_back("phases[0]", "");
    default_name = "task";
  }

  // The shorthand keys are consumed whether or not one applied: empty arrays
  // "do not count", and the decoder then reports the missing phases once.
  for (const char* key : {"chain", "tasks", "task", "agent"}) flow.erase(key);
  if (default_name == nullptr) return out;
  flow["phases"] = std::move(phases);
  if (!flow.contains("name")) flow["name"] = default_name;
  return out;
}

std::string OriginalPath(absl::string_view path,
                         const std::vector<std::pair<std::string, std::string>>& aliases) {
  // Longest matching prefix wins; a prefix matches at a path-segment boundary.
  const std::pair<std::string, std::string>* best = nullptr;
  for (const auto& alias : aliases) {
    const std::string& prefix = alias.first;
    if (!absl::StartsWith(path, prefix)) continue;
    if (path.size() > prefix.size() && path[prefix.size()] != '.' && path[prefix.size()] != '[') {
      continue;
    }
    if (best == nullptr || prefix.size() > best->first.size()) best = &alias;
  }
  if (best == nullptr) return std::string(path);
  std::string rest(path.substr(best->first.size()));
  if (best->second.empty() && !rest.empty() && rest[0] == '.') rest.erase(0, 1);
  return best->second + rest;
}

}  // namespace taskboard::flow
