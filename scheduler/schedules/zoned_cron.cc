#include "scheduler/schedules/zoned_cron.h"

#include <algorithm>
#include <cstdint>

namespace taskboard::schedules {
namespace {

// Two offset changes a year for 400 years, with room to spare.
constexpr int kMaxSegments = 2000;

absl::Time InstantAt(absl::CivilSecond civil, int offset_seconds) {
  return absl::FromCivil(civil, absl::UTCTimeZone()) - absl::Seconds(offset_seconds);
}

std::optional<absl::Time> Earlier(std::optional<absl::Time> a, std::optional<absl::Time> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace

std::optional<absl::Time> NextCronTime(const CronExpression& cron, const absl::TimeZone& zone,
                                       absl::Time after) {
  if (after == absl::InfiniteFuture()) return std::nullopt;
  // Segment: a stretch of constant offset. `lower` is the civil time the
  // fire must come strictly after; `begun_by` the transition that started
  // the segment, if any (its gap or repeat needs handling at the start).
  const absl::TimeZone::CivilInfo at_after = zone.At(after);
  absl::CivilSecond lower = at_after.cs;
  int offset = at_after.offset;
  absl::Time segment_start = after;
  absl::TimeZone::CivilTransition begun_by;
  // PrevTransition finds the latest change strictly before its argument;
  // one nanosecond on includes a change at exactly `after`.
  bool has_begun_by = zone.PrevTransition(after + absl::Nanoseconds(1), &begun_by);
  for (int segment = 0; segment < kMaxSegments; ++segment) {
    absl::TimeZone::CivilTransition next;
    const bool has_next = zone.NextTransition(segment_start, &next);
    const absl::CivilSecond upper = has_next ? next.from : absl::CivilSecond::max();

    absl::CivilSecond regular_lower = lower;
    std::optional<absl::Time> gap_fire;
    if (has_begun_by && begun_by.to < begun_by.from) {
      // Clocks went back: civil times from `to` up to `from` happened
      // before, in the previous segment; they do not fire twice.
      regular_lower = std::max(regular_lower, begun_by.from - 1);
    } else if (has_begun_by && begun_by.to > begun_by.from) {
      // Clocks jumped forward: civil times in [from, to) never happened;
      // each fires at itself + the jump, early in this segment.
      const int64_t jump = begun_by.to - begun_by.from;
      const absl::CivilSecond skipped_lower = std::max(begun_by.from - 1, lower - jump);
      if (std::optional<absl::CivilMinute> skipped = cron.NextMatch(skipped_lower, begun_by.to)) {
        gap_fire = InstantAt(absl::CivilSecond(*skipped) + jump, offset);
      }
    }
    std::optional<absl::Time> regular_fire;
    if (std::optional<absl::CivilMinute> found = cron.NextMatch(regular_lower, upper)) {
      regular_fire = InstantAt(absl::CivilSecond(*found), offset);
    }
    if (std::optional<absl::Time> fire = Earlier(gap_fire, regular_fire)) return fire;
    if (!has_next) return std::nullopt;

    segment_start = zone.At(next.to).trans;
    begun_by = next;
    has_begun_by = true;
    lower = next.to - 1;  // the segment's first civil second may fire
    offset = zone.At(segment_start).offset;
  }
  return std::nullopt;
}

}  // namespace taskboard::schedules
