#include "scheduler/flow/flow_fields.h"

#include <string>
#include <vector>

#include "common/json.h"
#include "scheduler/flow/flow_decoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_options_decoder.h"
#include "scheduler/flow/json_reader.h"
#include "scheduler/flow/kinds/flow_kind.h"

namespace taskboard::flow {
namespace {

// Documents whose blocks are present but empty: a reader records every field
// it asks for, present or not, so an empty object reaches all of them. `*`
// stands for a name the user chooses (an arg, a tool).
std::vector<Json> SampleDocuments() {
  std::vector<Json> docs = {
      Json::parse(R"({"args": {"*": {}}, "toolCache": {"tools": {"*": {}}}, "budget": {},
                      "phases": [{"branches": [{}], "approval": {}}]})"),
      Json::parse(R"({"planAndExecute": {"stepExecutor": {}}})"),
      Json::parse(R"({"planAndExecute": {"stepExecutor": {"flow": ""}}})"),
      Json::parse(R"({"phases": [{"type": "plan", "plan": {"stepExecutor": {}}},
                                 {"type": "supervise", "supervise": {}}]})"),
      Json::parse(R"({"board": {"tasks": [{}]}})"),
  };
  // Every kind's block, so that a new kind's fields are checked against the
  // doc without a sample of its own (nested objects and arrays still need one).
  for (const FlowKindInfo* kind : AllFlowKinds()) {
    if (!kind->block.empty()) docs.push_back({{std::string(kind->block), Json::object()}});
  }
  for (const char* policy : FlowPolicyNames()) {
    docs.push_back({{"flowPolicy", {{"type", policy}}}});
  }
  return docs;
}

// `phases[0].branches[1]` -> `phases[].branches[]`.
std::string WithoutIndices(const std::string& path) {
  std::string out;
  bool in_index = false;
  for (char c : path) {
    if (in_index && c != ']') continue;
    out.push_back(c);
    in_index = c == '[';
  }
  return out;
}

}  // namespace

std::map<std::string, std::set<std::string>> AcceptedFlowFields() {
  FieldRecorder recorder;
  for (const Json& doc : SampleDocuments()) {
    FlowErrorList ignored;  // the samples are not valid flows; only the reads count
    (void)DecodeFlow(doc, &ignored);
  }
  std::map<std::string, std::set<std::string>> fields;
  for (const auto& [path, names] : recorder.fields()) {
    fields[WithoutIndices(path)].insert(names.begin(), names.end());
  }
  return fields;
}

}  // namespace taskboard::flow
