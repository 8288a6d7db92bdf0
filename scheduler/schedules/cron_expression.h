#ifndef TASKBOARD_SCHEDULER_SCHEDULES_CRON_EXPRESSION_H_
#define TASKBOARD_SCHEDULER_SCHEDULES_CRON_EXPRESSION_H_

// A standard five-field cron expression (minute hour day-of-month month
// day-of-week) with Vixie cron's semantics, matched against civil (wall
// clock) times. Time zones are not its business: ZonedCron (zoned_cron.h)
// maps the civil times it matches to instants (docs/schedules.md#cron).
//
// Accepted, per field: `*`, a number, a name (JAN-DEC, SUN-SAT, any case), a
// range `a-b`, a step `*/n`, `a-b/n` or `a/n` (a to the field's end), and
// comma lists of those; day-of-week 7 is Sunday like 0. Macros: @yearly
// (@annually), @monthly, @weekly, @daily (@midnight), @hourly.
//
// Day-of-month and day-of-week: when both are restricted (neither starts
// with `*`) a day matches if EITHER matches; otherwise both must (Vixie;
// `*/2` counts as unrestricted because it starts with `*`). Our own parser
// rather than a library: Debian packages no C/C++ cron library
// (docs/decisions.md, decision 144).

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"

namespace taskboard::schedules {

// Longer expressions are refused: nothing legitimate needs more.
inline constexpr size_t kMaxCronExpressionLength = 256;

class CronExpression {
 public:
  // INVALID_ARGUMENT naming the field and the bad token
  // (`cron "0 25 * * *": hour: 25 is out of range 0-23`), for an expression
  // that is empty, too long, has other than five fields, or can never fire
  // (`0 0 30 2 *`).
  static absl::StatusOr<CronExpression> Parse(absl::string_view text);

  // The first minute strictly after `after` that matches and is strictly
  // before `before`; nullopt if there is none. Bounded: at most 400 years are
  // searched (the Gregorian calendar repeats after that, so an expression
  // that parsed always matches within it).
  std::optional<absl::CivilMinute> NextMatch(absl::CivilSecond after,
                                             absl::CivilSecond before) const;

  bool Matches(absl::CivilMinute minute) const;

  // The text as written (macros included), for messages and storage.
  const std::string& text() const { return text_; }

 private:
  CronExpression() = default;
  bool DayMatches(absl::CivilDay day) const;
  // The first (hour, minute) of `day` at or after `from` (a time of that day).
  std::optional<absl::CivilMinute> FirstTimeOfDay(absl::CivilDay day, int from_hour,
                                                  int from_minute) const;

  std::string text_;
  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_of_month_;  // 1-31
  std::bitset<13> months_;         // 1-12
  std::bitset<7> days_of_week_;    // 0-6, Sunday is 0
  bool day_of_month_star_ = false;
  bool day_of_week_star_ = false;
  std::vector<int> hour_list_;    // hours_, ascending
  std::vector<int> minute_list_;  // minutes_, ascending
};

}  // namespace taskboard::schedules

#endif  // TASKBOARD_SCHEDULER_SCHEDULES_CRON_EXPRESSION_H_
