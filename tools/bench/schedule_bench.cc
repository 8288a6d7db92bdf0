// The cost of computing a schedule's next fire times (docs/performance.md
// "Schedules"): NextFireTimes for the 10 times `describe` shows, and for
// 1000 (the most one call returns), across spec shapes:
//   UtcDaily        "0 2 * * *" in UTC (no offset changes to walk)
//   ZoneEveryMinute "* * * * *" in America/New_York, starting a day before
//                   the spring-forward jump, so the DST stretch is crossed
//   ZoneWeekdays    "30 9 * * MON-FRI" in Europe/Berlin
//   LeapDay         "0 12 29 2 *" (years between fires)
//   Mixed           three zoned crons and two intervals, merged
//   Jittered        ZoneEveryMinute with jitter (one SHA-256 per fire)
//
//   build/bin/schedule_bench

#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "scheduler/schedules/schedule_spec.h"

namespace taskboard::schedules {
namespace {

const absl::Time kFrom =
    absl::FromCivil(absl::CivilSecond(2026, 3, 7, 0, 0, 0), absl::UTCTimeZone());

ScheduleSpec Spec(const std::vector<std::pair<std::string, std::string>>& crons, int intervals = 0,
                  absl::Duration jitter = absl::ZeroDuration()) {
  ScheduleSpec spec;
  for (const auto& [expression, zone] : crons)
    spec.crons.push_back(*MakeCronItem(expression, zone));
  for (int i = 0; i < intervals; ++i) {
    spec.intervals.push_back(*MakeIntervalItem(absl::Minutes(7 + i), absl::Seconds(30)));
  }
  spec.jitter = jitter;
  return spec;
}

void Run(benchmark::State& state, const ScheduleSpec& spec) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::vector<FireTime> fires = NextFireTimes(spec, "bench-schedule", kFrom, n);
    benchmark::DoNotOptimize(fires);
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_UtcDaily(benchmark::State& state) { Run(state, Spec({{"0 2 * * *", "UTC"}})); }
void BM_ZoneEveryMinute(benchmark::State& state) {
  Run(state, Spec({{"* * * * *", "America/New_York"}}));
}
void BM_ZoneWeekdays(benchmark::State& state) {
  Run(state, Spec({{"30 9 * * MON-FRI", "Europe/Berlin"}}));
}
void BM_LeapDay(benchmark::State& state) { Run(state, Spec({{"0 12 29 2 *", "UTC"}})); }
void BM_Mixed(benchmark::State& state) {
  Run(state, Spec({{"*/5 * * * *", "America/New_York"},
                   {"0 9 * * MON-FRI", "Europe/Berlin"},
                   {"15 2 * * *", "Australia/Lord_Howe"}},
                  2));
}
void BM_Jittered(benchmark::State& state) {
  Run(state, Spec({{"* * * * *", "America/New_York"}}, 0, absl::Seconds(30)));
}

BENCHMARK(BM_UtcDaily)->Arg(10)->Arg(1000);
BENCHMARK(BM_ZoneEveryMinute)->Arg(10)->Arg(1000);
BENCHMARK(BM_ZoneWeekdays)->Arg(10)->Arg(1000);
BENCHMARK(BM_LeapDay)->Arg(10);
BENCHMARK(BM_Mixed)->Arg(10)->Arg(1000);
BENCHMARK(BM_Jittered)->Arg(10)->Arg(1000);

}  // namespace
}  // namespace taskboard::schedules

BENCHMARK_MAIN();
