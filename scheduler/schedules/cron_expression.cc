#include "scheduler/schedules/cron_expression.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace taskboard::schedules {
namespace {

constexpr const char* kMonthNames[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* kDayNames[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

// One of the five fields: its name in messages, its range, and its names
// (names[i] is the value first_named + i).
struct FieldSpec {
  const char* name;
  int min;
  int max;
  const char* const* names = nullptr;
  int name_count = 0;
  int first_named = 0;
};

constexpr FieldSpec kMinute{"minute", 0, 59};
constexpr FieldSpec kHour{"hour", 0, 23};
constexpr FieldSpec kDayOfMonth{"day-of-month", 1, 31};
constexpr FieldSpec kMonth{"month", 1, 12, kMonthNames, 12, 1};
// 7 is Sunday as well as 0; folded after parsing.
constexpr FieldSpec kDayOfWeek{"day-of-week", 0, 7, kDayNames, 7, 0};

// The most days each month can have (February in a leap year).
constexpr int kMaxDaysInMonth[] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

struct Macro {
  const char* name;
  const char* expansion;
};
constexpr Macro kMacros[] = {
    {"@yearly", "0 0 1 1 *"}, {"@annually", "0 0 1 1 *"}, {"@monthly", "0 0 1 * *"},
    {"@weekly", "0 0 * * 0"}, {"@daily", "0 0 * * *"},    {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

class FieldParser {
 public:
  FieldParser(absl::string_view expression, const FieldSpec& spec)
      : expression_(expression), spec_(spec) {}

  // Sets the bits of every value the field selects (bit i is value i).
  absl::Status Parse(absl::string_view field, std::bitset<64>* bits) const {
    for (absl::string_view item : absl::StrSplit(field, ',')) {
      if (item.empty())
        return Error(field, "has an empty list item (two commas, or a trailing one)");
      if (absl::Status status = ParseItem(item, bits); !status.ok()) return status;
    }
    return absl::OkStatus();
  }

 private:
  absl::Status ParseItem(absl::string_view item, std::bitset<64>* bits) const {
    absl::string_view base = item;
    int step = 1;
    bool stepped = false;
    if (size_t slash = item.find('/'); slash != absl::string_view::npos) {
      base = item.substr(0, slash);
      absl::string_view step_text = item.substr(slash + 1);
      const int max_step = spec_.max - spec_.min;
      if (!ParseNumber(step_text, &step) || step < 1 || step > max_step) {
        return Error(item,
                     absl::StrCat("step '", step_text, "' must be a number from 1 to ", max_step));
      }
      stepped = true;
    }
    int low = spec_.min;
    int high = spec_.max;
    if (base.empty() || base.front() == '-' || base.back() == '-') {
      return Error(item, absl::StrCat("is not a value, a range a-b or a step */n (in ", spec_.min,
                                      "-", spec_.max, ")"));
    }
    if (base != "*") {
      size_t dash = base.find('-');
      absl::string_view low_text = base.substr(0, dash);
      absl::StatusOr<int> parsed_low = Value(low_text);
      if (!parsed_low.ok()) return parsed_low.status();
      low = *parsed_low;
      if (dash != absl::string_view::npos) {
        absl::StatusOr<int> parsed_high = Value(base.substr(dash + 1));
        if (!parsed_high.ok()) return parsed_high.status();
        high = *parsed_high;
        if (high < low) {
          return Error(item,
                       absl::StrCat("range runs backwards; cron ranges do not wrap, so write ", low,
                                    "-", spec_.max, ",", spec_.min, "-", high));
        }
      } else if (!stepped) {
        high = low;  // a single value; `a/n` runs from a to the field's end
      }
    }
    for (int value = low; value <= high; value += step) bits->set(value);
    return absl::OkStatus();
  }

  absl::StatusOr<int> Value(absl::string_view token) const {
    int value = 0;
    if (ParseNumber(token, &value)) {
      if (value < spec_.min || value > spec_.max) {
        return Error(token, absl::StrCat("is out of range ", spec_.min, "-", spec_.max));
      }
      return value;
    }
    for (int i = 0; i < spec_.name_count; ++i) {
      if (absl::EqualsIgnoreCase(token, spec_.names[i])) return spec_.first_named + i;
    }
    if (spec_.name_count > 0) {
      return Error(
          token, absl::StrCat("is neither a number in ", spec_.min, "-", spec_.max, " nor a name (",
                              spec_.names[0], "-", spec_.names[spec_.name_count - 1], ")"));
    }
    return Error(token, absl::StrCat("is not a number in ", spec_.min, "-", spec_.max));
  }

  // Plain decimal digits only: no sign, no spaces, at most three digits.
  static bool ParseNumber(absl::string_view text, int* out) {
    if (text.empty() || text.size() > 3) return false;
    for (char c : text) {
      if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    }
    return absl::SimpleAtoi(text, out);
  }

  absl::Status Error(absl::string_view token, absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("cron \"", expression_, "\": ", spec_.name, ": '", token, "' ", what));
  }

  absl::string_view expression_;
  const FieldSpec& spec_;
};

template <size_t N>
std::bitset<N> Narrow(const std::bitset<64>& bits) {
  std::bitset<N> out;
  for (size_t i = 0; i < N; ++i) out[i] = bits[i];
  return out;
}

template <size_t N>
std::vector<int> Ascending(const std::bitset<N>& bits) {
  std::vector<int> out;
  for (size_t i = 0; i < N; ++i) {
    if (bits[i]) out.push_back(static_cast<int>(i));
  }
  return out;
}

absl::Status CronError(absl::string_view text, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("cron \"", text, "\": ", what));
}

}  // namespace

absl::StatusOr<CronExpression> CronExpression::Parse(absl::string_view text) {
  if (text.size() > kMaxCronExpressionLength) {
    return absl::InvalidArgumentError(absl::StrCat("cron expression is ", text.size(),
                                                   " characters; at most ",
                                                   kMaxCronExpressionLength, " are accepted"));
  }
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (trimmed.empty()) {
    return CronError(text,
                     "is empty; write five fields (minute hour day-of-month month "
                     "day-of-week), e.g. \"0 2 * * *\", or a macro such as @daily");
  }
  absl::string_view fields_text = trimmed;
  if (trimmed.front() == '@') {
    fields_text = "";
    for (const Macro& macro : kMacros) {
      if (absl::EqualsIgnoreCase(trimmed, macro.name)) fields_text = macro.expansion;
    }
    if (fields_text.empty()) {
      return CronError(text,
                       "unknown macro; use @yearly, @annually, @monthly, @weekly, @daily, "
                       "@midnight or @hourly (@reboot has no meaning for a schedule)");
    }
  }
  std::vector<absl::string_view> fields =
      absl::StrSplit(fields_text, absl::ByAnyChar(" \t"), absl::SkipEmpty());
  if (fields.size() != 5) {
    return CronError(text, absl::StrCat("has ", fields.size(),
                                        " fields; a cron expression has five: minute hour "
                                        "day-of-month month day-of-week (no seconds, no year)"));
  }
  CronExpression cron;
  cron.text_ = std::string(trimmed);
  const FieldSpec* specs[] = {&kMinute, &kHour, &kDayOfMonth, &kMonth, &kDayOfWeek};
  std::bitset<64> bits[5];
  for (int i = 0; i < 5; ++i) {
    if (absl::Status status = FieldParser(trimmed, *specs[i]).Parse(fields[i], &bits[i]);
        !status.ok()) {
      return status;
    }
  }
  cron.minutes_ = Narrow<60>(bits[0]);
  cron.hours_ = Narrow<24>(bits[1]);
  cron.days_of_month_ = Narrow<32>(bits[2]);
  cron.months_ = Narrow<13>(bits[3]);
  if (bits[4][7]) bits[4].set(0);
  cron.days_of_week_ = Narrow<7>(bits[4]);
  cron.day_of_month_star_ = fields[2].front() == '*';
  cron.day_of_week_star_ = fields[4].front() == '*';
  cron.hour_list_ = Ascending(cron.hours_);
  cron.minute_list_ = Ascending(cron.minutes_);

  // With day-of-month in play (AND), some selected month must have one of
  // its days; every (month, day) falls on every weekday within 400 years.
  if (cron.day_of_month_star_ || cron.day_of_week_star_) {
    bool possible = false;
    for (int month = 1; month <= 12 && !possible; ++month) {
      for (int day = 1; day <= kMaxDaysInMonth[month] && cron.months_[month]; ++day) {
        if (cron.days_of_month_[day]) {
          possible = true;
          break;
        }
      }
    }
    if (!possible) {
      return CronError(text, "never fires: no selected month has the selected day-of-month");
    }
  }
  return cron;
}

bool CronExpression::DayMatches(absl::CivilDay day) const {
  // absl::Weekday counts from Monday = 0; cron from Sunday = 0.
  const int weekday = (static_cast<int>(absl::GetWeekday(day)) + 1) % 7;
  const bool dom = days_of_month_[day.day()];
  const bool dow = days_of_week_[weekday];
  if (day_of_month_star_ || day_of_week_star_) return dom && dow;
  return dom || dow;
}

bool CronExpression::Matches(absl::CivilMinute minute) const {
  return minutes_[minute.minute()] && hours_[minute.hour()] && months_[minute.month()] &&
         DayMatches(absl::CivilDay(minute));
}

std::optional<absl::CivilMinute> CronExpression::FirstTimeOfDay(absl::CivilDay day, int from_hour,
                                                                int from_minute) const {
  for (int hour : hour_list_) {
    if (hour < from_hour) continue;
    for (int minute : minute_list_) {
      if (hour == from_hour && minute < from_minute) continue;
      return absl::CivilMinute(day.year(), day.month(), day.day(), hour, minute);
    }
  }
  return std::nullopt;
}

std::optional<absl::CivilMinute> CronExpression::NextMatch(absl::CivilSecond after,
                                                           absl::CivilSecond before) const {
  const absl::CivilMinute start = absl::CivilMinute(after) + 1;
  const absl::CivilDay first_day(start);
  const absl::civil_year_t last_year = start.year() + 400;
  absl::CivilDay day = first_day;
  while (day.year() <= last_year && absl::CivilSecond(day) < before) {
    if (!months_[day.month()]) {
      day = absl::CivilDay(absl::CivilMonth(day) + 1);
      continue;
    }
    if (DayMatches(day)) {
      const bool today = day == first_day;
      if (std::optional<absl::CivilMinute> found =
              FirstTimeOfDay(day, today ? start.hour() : 0, today ? start.minute() : 0)) {
        if (absl::CivilSecond(*found) >= before) return std::nullopt;
        return found;
      }
    }
    ++day;
  }
  return std::nullopt;
}

}  // namespace taskboard::schedules
