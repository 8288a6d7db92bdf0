#include "scheduler/flow/template_check.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"

namespace taskboard::flow {

void AddMissing(FlowErrorList* errors, const std::string& path, std::string message) {
  if (!errors->IsBroken(path)) errors->Add(path, std::move(message));
}

bool ReadsSteps(absl::string_view text) { return absl::StrContains(text, "steps."); }

namespace {

// `{steps.ID.output.NAME...}`: a form value of an approval step. An error
// for `shown` naming what to write instead, or "".
std::string CheckOutputField(const std::vector<std::string>& seg, const std::string& shown,
                             const TemplateScope& scope) {
  const std::vector<std::string>* fields = nullptr;
  if (scope.forms != nullptr) {
    auto form = scope.forms->find(seg[1]);
    if (form != scope.forms->end()) fields = &form->second;
  }
  if (fields != nullptr && seg.size() > 4) {
    return absl::StrCat(shown, ": a form value is text, with no fields of its own; use {steps.",
                        seg[1], ".output.", seg[3], "}");
  }
  // Past NAME, the rest of a JSON path belongs in the suggestion too.
  const std::string name = absl::StrJoin(seg.begin() + 3, seg.end(), ".");
  std::string error = FormFieldError(scope.node_word, seg[1], name, fields);
  return error.empty() ? "" : absl::StrCat(shown, ": ", error);
}

}  // namespace

void CheckTemplate(absl::string_view text, const std::string& path, const TemplateScope& scope,
                   FlowErrorList* errors) {
  for (const Placeholder& placeholder : FindPlaceholders(text, scope.item_var)) {
    const std::vector<std::string>& seg = placeholder.segments;
    const std::string shown = absl::StrCat("{", placeholder.text, "}");
    const std::string& root = seg[0];
    if (root == "args") {
      if (seg.size() >= 2 && !scope.arg_names->contains(seg[1])) {
        std::vector<std::string> declared(scope.arg_names->begin(), scope.arg_names->end());
        std::sort(declared.begin(), declared.end());
        errors->Add(
            path,
            absl::StrCat(shown, " refers to undeclared arg '", seg[1], "'",
                         declared.empty()
                             ? std::string("; declare it under `args`")
                             : absl::StrCat(" (declared: ", absl::StrJoin(declared, ", "), ")")));
      }
    } else if (root == "steps") {
      if (seg.size() < 3 || (seg[2] != "output" && seg[2] != "json")) {
        errors->Add(path, absl::StrCat(shown,
                                       " is not a step placeholder; use {steps.ID.output}, "
                                       "{steps.ID.json[.path]} or, for an approval, "
                                       "{steps.ID.output.FIELD}"));
      } else if (!scope.node_ids->contains(seg[1])) {
        errors->Add(path,
                    absl::StrCat(shown, " refers to unknown ", scope.node_word, " '", seg[1], "'"));
      } else if (!scope.upstream.contains(seg[1])) {
        errors->Add(path, absl::StrCat(shown, " refers to ", scope.node_word, " '", seg[1],
                                       "', which is not upstream of this ", scope.node_word,
                                       "; add it to its dependencies"));
      } else if (seg[2] == "output" && seg.size() > 3) {
        if (std::string error = CheckOutputField(seg, shown, scope); !error.empty()) {
          errors->Add(path, std::move(error));
        }
      }
    } else if (root == "previous") {
      if (seg.size() != 2 || seg[1] != "output") {
        errors->Add(path, absl::StrCat(shown, " is not supported; use {previous.output}"));
      } else if (!scope.has_deps) {
        errors->Add(path, absl::StrCat(shown, " needs a dependency, but this ", scope.node_word,
                                       " has none"));
      }
    } else if (scope.item_var.empty()) {
      errors->Add(path, absl::StrCat(shown, " is only available inside a map phase's task"));
    } else if (root != scope.item_var) {
      errors->Add(path, absl::StrCat(shown, " does not name this map's item; it is called '",
                                     scope.item_var, "' (set by `as`)"));
    }
  }
}

void CheckDepList(const google::protobuf::RepeatedPtrField<std::string>& deps,
                  const std::string& path, const absl::flat_hash_set<std::string>& ids,
                  const char* word, FlowErrorList* errors) {
  for (int j = 0; j < deps.size(); ++j) {
    if (!ids.contains(deps[j])) {
      errors->Add(IndexPath(path, j), absl::StrCat("unknown ", word, " '", deps[j], "'"));
    }
  }
}

void CheckCycle(const std::vector<DagNode>& nodes, const std::string& list_path,
                const char* deps_key, FlowErrorList* errors) {
  std::optional<std::vector<std::string>> cycle = FindCycle(nodes);
  if (!cycle) return;
  int index = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id == cycle->front()) index = static_cast<int>(i);
  }
  errors->Add(JoinPath(IndexPath(list_path, index), deps_key),
              absl::StrCat("dependency cycle: ", FormatCycle(*cycle)));
}

void CheckGoal(const std::string& goal, const std::string& path,
               const absl::flat_hash_set<std::string>& args, FlowErrorList* errors) {
  const absl::flat_hash_set<std::string> no_ids;
  TemplateScope scope{&args, &no_ids, {}, false, "", "step"};
  CheckTemplate(goal, path, scope, errors);
}

}  // namespace taskboard::flow
