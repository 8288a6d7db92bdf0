#include "worker/agents/prior_work_json.h"

#include <string>

#include "google/protobuf/util/time_util.h"

namespace taskboard::worker {
namespace {

// JSON text as a value; text that does not parse (a tool that broke the
// contract) stays a string rather than being lost.
Json JsonValue(const std::string& text) {
  if (text.empty()) return nullptr;
  absl::StatusOr<Json> value = ParseJson(text);
  return value.ok() ? *std::move(value) : Json(text);
}

Json ObservationJson(const v1::Observation& observation) {
  const bool failed = !observation.error().empty();
  Json source = nullptr;
  if (!observation.source_task().task_id().empty()) {
    source = {{"run_id", observation.source_task().run_id()},
              {"task_id", observation.source_task().task_id()}};
  }
  Json ts = nullptr;
  if (observation.has_ts()) ts = google::protobuf::util::TimeUtil::ToString(observation.ts());
  return {
      {"seq", observation.seq()},
      {"run_id", observation.run_id()},
      {"task_id", observation.task_id()},
      {"tool", observation.tool_name()},
      {"args", JsonValue(observation.args_json())},
      {"result", failed ? Json(nullptr) : JsonValue(observation.result_json())},
      {"error", failed ? Json(observation.error()) : Json(nullptr)},
      {"cached", observation.cached()},
      {"cache_age_ms", observation.cache_age_ms()},
      {"source_task", std::move(source)},
      {"ts", std::move(ts)},
      {"duration_ms", observation.duration_ms()},
  };
}

}  // namespace

Json PriorWorkJson(const v1::PriorWork& prior_work) {
  Json observations = Json::array();
  for (const v1::Observation& observation : prior_work.observations()) {
    observations.push_back(ObservationJson(observation));
  }
  const v1::PriorWorkMeta& meta = prior_work.meta();
  return {
      {"observations", std::move(observations)},
      {"narrative", prior_work.narrative()},
      {"meta",
       {{"policy", meta.policy()},
        {"selected", meta.selected()},
        {"available", meta.available()},
        {"tokens_approx", meta.tokens_approx()},
        {"fallback_reason", meta.fallback_reason()}}},
  };
}

}  // namespace taskboard::worker
