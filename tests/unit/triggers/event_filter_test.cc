#include "scheduler/triggers/event_filter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::triggers {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

Event PullRequest(const std::string& action) {
  Event event;
  event.name = "github";
  event.payload = {{"action", action}, {"pull_request", {{"number", 7}}}};
  event.headers["x-github-event"] = "pull_request";
  return event;
}

FilterCondition Path(const std::string& path, Json equals) {
  return {*JsonPath::Parse(path), "", std::move(equals)};
}

FilterCondition Header(const std::string& header, const std::string& equals) {
  return {std::nullopt, header, equals};
}

TEST(EventFilterTest, FilterMismatch_EveryConditionHolds_IsNullopt) {
  EXPECT_EQ(FilterMismatch({Path("$.action", "opened"), Header("X-GitHub-Event", "pull_request"),
                            Path("$.pull_request.number", 7)},
                           PullRequest("opened")),
            std::nullopt);
  EXPECT_EQ(FilterMismatch({}, PullRequest("closed")), std::nullopt);
}

TEST(EventFilterTest, FilterMismatch_OneFails_SaysWhichAndWhy) {
  EXPECT_THAT(FilterMismatch({Path("$.action", "opened")}, PullRequest("closed")),
              Optional(HasSubstr(R"($.action is "closed", not "opened")")));
  EXPECT_THAT(FilterMismatch({Header("X-GitHub-Event", "push")}, PullRequest("opened")),
              Optional(HasSubstr("header X-GitHub-Event")));
  EXPECT_THAT(FilterMismatch({Path("$.issue.number", 1)}, PullRequest("opened")),
              Optional(HasSubstr("not in the payload")));
}

TEST(EventFilterTest, FilterMismatch_ComparesJsonNotText) {
  EXPECT_NE(FilterMismatch({Path("$.pull_request.number", "7")}, PullRequest("opened")),
            std::nullopt);
}

}  // namespace
}  // namespace taskboard::triggers
