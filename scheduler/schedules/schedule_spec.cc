#include "scheduler/schedules/schedule_spec.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "scheduler/schedules/zoned_cron.h"

namespace taskboard::schedules {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<absl::Time> NextIntervalTime(const IntervalItem& item, absl::Time after) {
  if (after == absl::InfiniteFuture()) return std::nullopt;
  const int64_t every = absl::ToInt64Seconds(item.every);
  const int64_t offset = absl::ToInt64Seconds(item.offset);
  // Far enough back for any real schedule, far from overflow.
  constexpr int64_t kEarliest = -(int64_t{1} << 40);
  const int64_t seconds =
      after == absl::InfinitePast() ? kEarliest : std::max(kEarliest, absl::ToUnixSeconds(after));
  // ToUnixSeconds rounds down, so the next multiple is strictly after `after`.
  const int64_t k = FloorDiv(seconds - offset, every) + 1;
  return absl::FromUnixSeconds(offset + k * every);
}

std::optional<absl::Time> NextItemTime(const ScheduleSpec& spec, size_t index, absl::Time after) {
  if (index < spec.crons.size()) {
    const CronItem& item = spec.crons[index];
    return NextCronTime(item.cron, item.zone, after);
  }
  return NextIntervalTime(spec.intervals[index - spec.crons.size()], after);
}

// Nominal times are searched from just before the start time.
absl::Time SearchFrom(const ScheduleSpec& spec, absl::Time after) {
  if (spec.start_time && *spec.start_time - absl::Nanoseconds(1) > after) {
    return *spec.start_time - absl::Nanoseconds(1);
  }
  return after;
}

bool PastEnd(const ScheduleSpec& spec, absl::Time nominal) {
  return spec.end_time && nominal > *spec.end_time;
}

}  // namespace

absl::StatusOr<CronItem> MakeCronItem(absl::string_view expression, absl::string_view zone_name) {
  absl::StatusOr<CronExpression> cron = CronExpression::Parse(expression);
  if (!cron.ok()) return cron.status();
  CronItem item{*std::move(cron), std::string(zone_name), absl::UTCTimeZone()};
  if (zone_name.size() > 64 || !absl::LoadTimeZone(zone_name, &item.zone)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown time zone \"", zone_name,
        "\": use an IANA name such as Europe/Berlin or America/New_York (the names under "
        "/usr/share/zoneinfo; install the tzdata package if that folder is missing)"));
  }
  return item;
}

absl::StatusOr<IntervalItem> MakeIntervalItem(absl::Duration every, absl::Duration offset) {
  const auto whole = [](absl::Duration d) { return d == absl::Trunc(d, absl::Seconds(1)); };
  if (every < absl::Seconds(1) || every > kMaxInterval || !whole(every)) {
    return absl::InvalidArgumentError(
        absl::StrCat("interval every ", absl::FormatDuration(every),
                     " must be whole seconds from 1s to 366 days (8784h)"));
  }
  if (offset < absl::ZeroDuration() || offset >= every || !whole(offset)) {
    return absl::InvalidArgumentError(
        absl::StrCat("interval offset ", absl::FormatDuration(offset),
                     " must be whole seconds, at least 0 and less than every (",
                     absl::FormatDuration(every), ")"));
  }
  return IntervalItem{every, offset};
}

absl::Status CheckScheduleSpec(const ScheduleSpec& spec) {
  const size_t items = spec.crons.size() + spec.intervals.size();
  if (items == 0) {
    return absl::InvalidArgumentError(
        "schedule spec names no times: give at least one cron expression or interval");
  }
  if (items > static_cast<size_t>(kMaxSpecItems)) {
    return absl::InvalidArgumentError(absl::StrCat("schedule spec has ", items,
                                                   " cron expressions and intervals; at most ",
                                                   kMaxSpecItems, " are accepted"));
  }
  if (spec.start_time && spec.end_time && *spec.end_time < *spec.start_time) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule end time ", FormatFireTime(*spec.end_time),
                     " is before its start time ", FormatFireTime(*spec.start_time)));
  }
  if (spec.jitter < absl::ZeroDuration() || spec.jitter > kMaxJitter) {
    return absl::InvalidArgumentError(absl::StrCat(
        "schedule jitter ", absl::FormatDuration(spec.jitter), " must be from 0 to 24h"));
  }
  return absl::OkStatus();
}

std::optional<absl::Time> NextNominalTime(const ScheduleSpec& spec, absl::Time after) {
  const absl::Time from = SearchFrom(spec, after);
  std::optional<absl::Time> best;
  const size_t items = spec.crons.size() + spec.intervals.size();
  for (size_t i = 0; i < items; ++i) {
    std::optional<absl::Time> next = NextItemTime(spec, i, from);
    if (next && (!best || *next < *best)) best = next;
  }
  if (!best || PastEnd(spec, *best)) return std::nullopt;
  return best;
}

FireTime FireAt(const ScheduleSpec& spec, absl::string_view schedule_id, absl::Time nominal) {
  return FireTime{nominal, nominal + JitterFor(schedule_id, nominal, spec.jitter)};
}

std::vector<FireTime> NextFireTimes(const ScheduleSpec& spec, absl::string_view schedule_id,
                                    absl::Time after, int n) {
  std::vector<FireTime> fires;
  n = std::min(n, kMaxFireTimesPerCall);
  if (n <= 0) return fires;
  fires.reserve(n);
  const absl::Time from = SearchFrom(spec, after);
  // One cursor per item: its next time, advanced when it is taken (or when
  // another item named the same time, which fires once).
  const size_t items = spec.crons.size() + spec.intervals.size();
  std::vector<std::optional<absl::Time>> cursors(items);
  for (size_t i = 0; i < items; ++i) cursors[i] = NextItemTime(spec, i, from);
  while (static_cast<int>(fires.size()) < n) {
    std::optional<absl::Time> earliest;
    for (const std::optional<absl::Time>& cursor : cursors) {
      if (cursor && (!earliest || *cursor < *earliest)) earliest = cursor;
    }
    if (!earliest || PastEnd(spec, *earliest)) break;
    fires.push_back(FireAt(spec, schedule_id, *earliest));
    for (size_t i = 0; i < items; ++i) {
      if (cursors[i] == earliest) cursors[i] = NextItemTime(spec, i, *earliest);
    }
  }
  return fires;
}

}  // namespace taskboard::schedules
