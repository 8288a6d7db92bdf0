#ifndef TASKBOARD_TESTS_UNIT_ENGINE_SCHEDULES_SCHEDULES_HARNESS_H_
#define TASKBOARD_TESTS_UNIT_ENGINE_SCHEDULES_SCHEDULES_HARNESS_H_

// An Engine on a fake clock with schedules, for the schedule tests: a run
// source that hands out a one-phase flow (or refuses, as a deleted saved
// flow would), the clock set to a wall time, and the schedule calls made
// synchronously (each runs one batch).

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "scheduler/engine/schedules/schedule_run_source.h"
#include "scheduler/engine/schedules/schedules.h"
#include "scheduler/store/keys.h"
#include "tests/testing/flow_error_lines.h"
#include "tests/unit/engine/engine_harness.h"

namespace taskboard::engine::testing {

inline constexpr char kOnePhase[] = R"({"name": "nightly", "phases": [
    {"id": "a", "agent": "coder", "task": "audit {args.repo}"}],
    "args": {"repo": {"default": "api"}}})";

// Hands out kOnePhase for every schedule, as the server's intake would the
// saved flow; `refuse` makes it answer as if the flow had been deleted.
class FakeRunSource final : public ScheduleRunSource {
 public:
  absl::StatusOr<SubmitRequest> Prepare(const std::string& tenant,
                                        const schedules::ScheduleDefinition& definition,
                                        const std::string& idempotency_key) override {
    if (refuse) {
      return absl::NotFoundError(absl::StrCat("saved flow '", definition.flow, "' not found"));
    }
    SubmitRequest request;
    request.spec = taskboard::testing::LoadValidFlow(kOnePhase);
    request.args = Json::object({{"repo", "api"}});
    request.labels = definition.labels;
    request.tenant = tenant;
    request.idempotency_key = idempotency_key;
    return request;
  }
  bool refuse = false;
};

class SchedulesHarness {
 public:
  SchedulesHarness() : h(Options(&source)) {}

  static EngineOptions Options(ScheduleRunSource* source) {
    EngineOptions options = EngineHarness::DefaultOptions();
    options.schedule_runs = source;
    // Runs wait for a worker that never comes: they end only when a test
    // ends them (the default would fail them after a minute).
    options.scheduling_timeout_ms = int64_t{1} << 40;
    return options;
  }

  // Moves the fake clock forward to `time` in one step (no batch).
  void JumpTo(absl::Time time) {
    const int64_t target = absl::ToUnixMillis(time);
    ASSERT_GE(target, h.clock().NowMs()) << "the fake clock only moves forward";
    h.clock().Advance(target - h.clock().NowMs());
  }
  // Moves the clock to `end` in steps of `step`, a batch after each.
  void StepTo(absl::Time end, absl::Duration step) {
    while (absl::FromUnixMillis(h.clock().NowMs()) + step <= end) {
      h.Advance(absl::ToInt64Milliseconds(step));
    }
    JumpTo(end);
    h.RunOnce();
  }
  absl::Time Now() { return absl::FromUnixMillis(h.clock().NowMs()); }

  template <typename Answer>
  Answer Call(std::function<Answer(Schedules&)> work) {
    std::optional<Answer> answer;
    h.engine().OnComponent<Schedules, Answer>(std::move(work),
                                              [&](Answer a) { answer = std::move(a); });
    h.RunOnce();
    EXPECT_TRUE(answer.has_value()) << "no answer within one batch";
    return std::move(answer).value();
  }
  absl::StatusOr<v1::Schedule> Create(const std::string& source_text,
                                      const std::string& tenant = "") {
    return Call<absl::StatusOr<v1::Schedule>>(
        [&](Schedules& s) { return s.Create(tenant, source_text); });
  }
  v1::Schedule Describe(const std::string& name, const std::string& tenant = "") {
    absl::StatusOr<v1::Schedule> described =
        Call<absl::StatusOr<v1::Schedule>>([&](Schedules& s) { return s.Describe(tenant, name); });
    EXPECT_TRUE(described.ok()) << described.status();
    return described.value_or(v1::Schedule());
  }

  // Fire time (UTC, as in the key) -> run id, of every run the schedule's
  // spec or a backfill started (not triggers), read from the store's
  // idempotency keys.
  std::map<std::string, std::string> FiredRuns(const std::string& name) {
    std::map<std::string, std::string> runs;
    const std::string prefix = store::keys::Idempotency(absl::StrCat("schedule:", name));
    absl::Status scanned = h.store().ScanPrefix(
        store::Column::kMeta, prefix, [&](absl::string_view key, absl::string_view value) {
          absl::string_view rest = key.substr(prefix.size());
          if (!absl::StartsWith(rest, "@")) return true;  // another schedule, or a trigger
          runs[std::string(rest.substr(rest.find('@') + 1))] = std::string(value);
          return true;
        });
    EXPECT_TRUE(scanned.ok()) << scanned;
    return runs;
  }
  std::vector<std::string> FireTimes(const std::string& name) {
    std::vector<std::string> times;
    for (const auto& [time, run] : FiredRuns(name)) times.push_back(time);
    return times;
  }

  FakeRunSource source;  // before h: the engine uses it until it is gone
  EngineHarness h;
};

inline absl::Time Utc(const std::string& rfc3339) {
  absl::Time time;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, rfc3339, &time, &error)) << error;
  return time;
}

}  // namespace taskboard::engine::testing

#endif  // TASKBOARD_TESTS_UNIT_ENGINE_SCHEDULES_SCHEDULES_HARNESS_H_
