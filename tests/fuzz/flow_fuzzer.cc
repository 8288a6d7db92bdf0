// libFuzzer target for the flow DSL core: parsing (JSON and YAML), shorthand,
// decoding, validation, encoding and interpolation, plus the agent-output
// readers the flows share (JSON extraction, map items, fan-out merging).
// The pattern agents' readers (plans, reviews, gate verdicts) have their own
// target, pattern_output_fuzzer.cc.
//
// Beyond "no crash, no sanitizer report" it checks one property: a flow that
// loads re-encodes to DSL that loads to the same FlowSpec.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/json.h"
#include "common/utf8.h"
#include "google/protobuf/util/message_differencer.h"
#include "scheduler/flow/fanout_output.h"
#include "scheduler/flow/flow_encoder.h"
#include "scheduler/flow/flow_errors.h"
#include "scheduler/flow/flow_loader.h"
#include "scheduler/flow/interpolation.h"
#include "scheduler/flow/json_extract.h"
#include "scheduler/flow/map_items.h"

namespace {

using taskboard::Json;
namespace flow = taskboard::flow;

void CheckRoundTrip(const taskboard::v1::FlowSpec& spec) {
  absl::StatusOr<taskboard::v1::FlowSpec> again = flow::LoadFlowJson(flow::EncodeFlow(spec));
  if (!again.ok() || !google::protobuf::util::MessageDifferencer::Equals(spec, *again)) {
    std::abort();  // the encoder and decoder disagree
  }
}

// Errors travel in proto strings, which must be valid UTF-8 to parse back.
void CheckErrorsAreUtf8(const absl::Status& status) {
  const taskboard::v1::FlowErrors errors = flow::FlowErrorsFromStatus(status);
  for (const auto& error : errors.errors()) {
    if (taskboard::FindInvalidUtf8(error.path()) || taskboard::FindInvalidUtf8(error.message())) {
      std::abort();
    }
  }
}

void InterpolateEveryTask(const taskboard::v1::FlowSpec& spec, const std::string& text) {
  if (!spec.has_taskflow()) return;
  const Json args = {{"dir", text}, {"n", 3}};
  const Json item = {{"file", text}, {"list", Json::array({1, "two", nullptr})}};
  flow::InterpolationContext context;
  context.args = &args;
  context.item = &item;
  for (const auto& phase : spec.taskflow().phases()) {
    flow::StepValue value;
    value.output = text;
    value.json = flow::ExtractJson(text);
    context.steps[phase.id()] = value;
    context.previous_candidates.push_back(phase.id());
  }
  for (const auto& phase : spec.taskflow().phases()) {
    context.item_var = phase.item_var().empty() ? "item" : phase.item_var();
    (void)flow::Interpolate(phase.task(), context);
    absl::StatusOr<Json> over = flow::InterpolateValue(phase.over(), context);
    if (over.ok()) (void)flow::ResolveMapItems(phase.id(), *over);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  for (flow::DslFormat format : {flow::DslFormat::kJson, flow::DslFormat::kYaml}) {
    absl::StatusOr<taskboard::v1::FlowSpec> spec = flow::LoadFlowText(text, format);
    if (spec.ok()) {
      CheckRoundTrip(*spec);
      InterpolateEveryTask(*spec, text);
    } else {
      CheckErrorsAreUtf8(spec.status());
    }
  }

  if (std::optional<Json> json = flow::ExtractJson(text)) {
    (void)flow::ResolveMapItems("m", *json);
  }
  (void)flow::MergeFanOutJson({{"a", text, false}, {"b", text, true}});
  return 0;
}
