#include "scheduler/flow/flow_decoder.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/flow/flow_names.h"
#include "scheduler/flow/flow_options_decoder.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/kinds/flow_kind.h"
#include "scheduler/flow/proto_value.h"

namespace taskboard::flow {
namespace {

void DecodeArgs(const Json& value, const std::string& path, v1::FlowSpec* spec,
                FlowErrorList* errors) {
  if (!value.is_object()) {
    errors->Add(path, absl::StrCat("must be an object of arg name -> {default?, description?, "
                                   "required?} (got ",
                                   DescribeJsonType(value), ")"));
    return;
  }
  for (const auto& [name, arg_json] : value.items()) {
    v1::ArgSpec* arg = spec->add_args();
    arg->set_name(name);
    JsonReader reader(arg_json, JoinPath(path, name), errors);
    if (const Json* def = reader.Raw("default"); def != nullptr) {
      *arg->mutable_default_value() = JsonToProtoValue(*def);
    }
    arg->set_description(reader.String("description").value_or(""));
    arg->set_required(reader.Bool("required").value_or(false));
    reader.RejectUnknownFields();
  }
}

// `budget`, `onBudget`, `priority`: how much LLM use a run may cost, what
// happens when a call would cost more, and its rank when model limits are full
// (docs/llm-governance.md). Every kind accepts them.
void DecodeLlmGovernance(JsonReader& root, v1::FlowSpec* spec, FlowErrorList* errors) {
  if (const Json* budget = root.Raw("budget"); budget != nullptr && !budget->is_null()) {
    *spec->mutable_budget() = DecodeRunBudget(*budget, "budget", errors);
  }
  if (const Json* on_budget = root.Raw("onBudget"); on_budget != nullptr && !on_budget->is_null()) {
    spec->set_on_budget(DecodeOnBudget(*on_budget, "onBudget", errors));
  }
  spec->set_priority(
      static_cast<int32_t>(root.Int("priority", -kMaxFlowPriority, kMaxFlowPriority).value_or(0)));
}

// pi-taskflow's `version` (a number, "informational only" there too): checked
// so a typo'd value is reported, then dropped; saved flows have their own
// versions (SaveFlow numbers them).
void DecodeVersion(JsonReader& root, FlowErrorList* errors) {
  const Json* version = root.Raw("version");
  if (version == nullptr || version->is_null() || version->is_number()) return;
  errors->Add("version", absl::StrCat("must be a number, like pi-taskflow's `version: 1` (got ",
                                      DescribeJsonType(*version),
                                      "); it is informational: remove it or write a number"));
}

// "`planAndExecute`, `supervisor`, `board`": every kind's block, in table order.
std::string BlockList() {
  std::vector<std::string> blocks;
  for (const FlowKindInfo* kind : AllFlowKinds()) {
    if (!kind->block.empty()) blocks.push_back(absl::StrCat("`", kind->block, "`"));
  }
  return absl::StrJoin(blocks, ", ");
}

// The kind named by `kind`, or implied by the block present.
const FlowKindInfo& ResolveKind(JsonReader& root, const Json& doc, FlowErrorList* errors) {
  const FlowKindInfo* implied = AllFlowKinds().front();  // taskflow: no block
  int blocks = 0;
  for (const FlowKindInfo* kind : AllFlowKinds()) {
    if (!kind->block.empty() && doc.contains(std::string(kind->block))) {
      implied = kind;
      ++blocks;
    }
  }
  if (blocks > 1) {
    errors->Add("", absl::StrCat("a flow has one kind: use only one of ", BlockList()));
    // Reported once above; the blocks not decoded are not also "unknown".
    for (const FlowKindInfo* kind : AllFlowKinds()) {
      if (!kind->block.empty()) root.Ignore(kind->block);
    }
  }
  std::optional<std::string> name = root.String("kind");
  if (!name) return *implied;
  const FlowKindInfo* named = FindFlowKindByName(*name);
  if (named == nullptr) {
    std::vector<absl::string_view> names;
    for (const FlowKindInfo* kind : AllFlowKinds()) names.push_back(kind->name);
    errors->Add("kind", absl::StrCat("unknown kind '", *name, "'; use one of ",
                                     absl::StrJoin(names, ", ")));
    return *implied;
  }
  return *named;
}

}  // namespace

v1::FlowSpec DecodeFlow(const Json& doc, FlowErrorList* errors) {
  v1::FlowSpec spec;
  if (!doc.is_object()) {
    errors->Add(
        "", absl::StrCat("a flow must be a JSON/YAML object (got ", DescribeJsonType(doc), ")"));
    errors->MarkBroken("");  // nothing else can be checked
    return spec;
  }
  JsonReader root(doc, "", errors);
  spec.set_name(root.String("name").value_or(""));
  spec.set_description(root.String("description").value_or(""));
  if (const Json* args = root.Raw("args"); args != nullptr && !args->is_null()) {
    DecodeArgs(*args, "args", &spec, errors);
  }
  if (const Json* policy = root.Raw("flowPolicy"); policy != nullptr && !policy->is_null()) {
    *spec.mutable_flow_policy() = DecodeFlowPolicy(*policy, "flowPolicy", errors);
  }
  if (const Json* cache = root.Raw("toolCache"); cache != nullptr && !cache->is_null()) {
    *spec.mutable_tool_cache() = DecodeToolCache(*cache, "toolCache", errors);
  }
  spec.set_max_attempts_per_task(
      static_cast<int32_t>(root.Int("maxAttemptsPerTask", 1, 100).value_or(0)));
  spec.set_timeout_seconds(
      static_cast<int32_t>(root.Int("timeoutSeconds", 1, kMaxTimeoutSeconds).value_or(0)));
  // The whole run's deadline; `timeoutSeconds` above is each task's
  // (docs/semantics.md#run-deadlines, decision 190).
  spec.set_run_timeout_seconds(
      static_cast<int32_t>(root.Int("runTimeoutSeconds", 1, kMaxRunTimeoutSeconds).value_or(0)));
  DecodeLlmGovernance(root, &spec, errors);
  // Checked by the validator (common/webhook_url.h), and against the
  // scheduler's --approval-webhook-allow at intake.
  spec.set_approval_webhook(root.String("approvalWebhook").value_or(""));
  // pi-taskflow's agent discovery scope; Taskboard's agents live on workers.
  root.Ignore("agentScope");
  DecodeVersion(root, errors);

  const FlowKindInfo& kind = ResolveKind(root, doc, errors);
  if (kind.block.empty()) {
    kind.decode(root, doc, "", &spec, errors);
  } else {
    for (const char* key : {"phases", "concurrency"}) {
      if (doc.contains(key)) {
        errors->Add(key,
                    absl::StrCat("`", key, "` belongs to taskflow flows, not kind ", kind.name));
        root.Ignore(key);
      }
    }
    const std::string block(kind.block);
    const Json* config = root.Raw(block);
    if (config == nullptr) {
      errors->Add(block, absl::StrCat("kind ", kind.name, " needs a `", block, "` block"));
      errors->MarkBroken("kind");  // the spec has no kind; validation must not say so again
    } else {
      kind.decode(root, *config, block, &spec, errors);
    }
  }
  root.RejectUnknownFields();
  return spec;
}

}  // namespace taskboard::flow
