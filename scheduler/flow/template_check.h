#ifndef TASKBOARD_SCHEDULER_FLOW_TEMPLATE_CHECK_H_
#define TASKBOARD_SCHEDULER_FLOW_TEMPLATE_CHECK_H_

// The checks every kind's validator shares (kinds/*_kind.cc): node ids,
// dependency lists and cycles, and the placeholders a template may use
// (docs/semantics.md#validation). Each adds to a FlowErrorList; none stops at
// the first problem.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "scheduler/flow/dag.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/interpolation.h"
#include "scheduler/flow/json_reader.h"

namespace taskboard::flow {

// A "missing field" error, unless decoding already reported the field as
// unusable (e.g. `"task": 5`), which would say the same thing twice.
void AddMissing(FlowErrorList* errors, const std::string& path, std::string message);

// Whether a template may read a step's output (`{steps.ID...}`): only those
// need the node's upstream closure, which for a long chain is as long as it.
bool ReadsSteps(absl::string_view text);

// What a template in one phase (or board task) may refer to.
struct TemplateScope {
  const absl::flat_hash_set<std::string>* arg_names;
  const absl::flat_hash_set<std::string>* node_ids;  // every phase/task id
  absl::flat_hash_set<std::string> upstream;         // transitive deps
  bool has_deps = false;
  std::string item_var;  // non-empty inside a map phase's task
  const char* node_word = "phase";
  // Approval phases (and approval gates) by id -> their form's field names:
  // `{steps.ID.output.NAME}` reads those. Null for boards.
  const absl::flat_hash_map<std::string, std::vector<std::string>>* forms = nullptr;
};

// Reports each placeholder of `text` that `scope` does not allow, at `path`.
void CheckTemplate(absl::string_view text, const std::string& path, const TemplateScope& scope,
                   FlowErrorList* errors);

// Pattern goals are interpolated with args only.
void CheckGoal(const std::string& goal, const std::string& path,
               const absl::flat_hash_set<std::string>& args, FlowErrorList* errors);

// Ids: present, well-formed, unique. Returns the set of usable ids.
template <typename Node>
absl::flat_hash_set<std::string> CheckIds(const google::protobuf::RepeatedPtrField<Node>& nodes,
                                          const std::string& list_path, const char* word,
                                          FlowErrorList* errors) {
  absl::flat_hash_set<std::string> ids;
  absl::flat_hash_map<std::string, int> first_index;
  for (int i = 0; i < nodes.size(); ++i) {
    const std::string path = IndexPath(list_path, i);
    if (errors->IsBroken(path)) continue;
    const std::string& id = nodes[i].id();
    if (id.empty()) {
      AddMissing(errors, JoinPath(path, "id"), absl::StrCat("missing ", word, " id"));
    } else if (!IsPlaceholderSegment(id)) {
      errors->Add(JoinPath(path, "id"),
                  absl::StrCat(word, " id '", id,
                               "' may only contain letters, digits, '_' and '-' (ids are used in "
                               "{steps.ID...} placeholders)"));
    } else if (auto [it, inserted] = first_index.try_emplace(id, i); !inserted) {
      errors->Add(JoinPath(path, "id"),
                  absl::StrCat("duplicate ", word, " id '", id, "' (first used at ",
                               IndexPath(list_path, it->second), ")"));
    }
    if (!id.empty()) ids.insert(id);
  }
  return ids;
}

// Each entry of `deps` (at `path`) must be one of `ids`.
void CheckDepList(const google::protobuf::RepeatedPtrField<std::string>& deps,
                  const std::string& path, const absl::flat_hash_set<std::string>& ids,
                  const char* word, FlowErrorList* errors);

// One error, at the first node of a cycle's `deps_key`, naming the cycle.
void CheckCycle(const std::vector<DagNode>& nodes, const std::string& list_path,
                const char* deps_key, FlowErrorList* errors);

}  // namespace taskboard::flow

#endif  // TASKBOARD_SCHEDULER_FLOW_TEMPLATE_CHECK_H_
