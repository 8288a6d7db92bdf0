// `taskboard triggers` (docs/schedules.md#trigger-cli): what `describe`
// prints, and a bad trigger file refused locally, with every problem,
// before any call.

#include "tools/cli/triggers_command.h"

#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(TriggersCommand, PrintTrigger_ShowsSettingsCountsAndDeliveries) {
  v1::Trigger trigger;
  trigger.set_name("pr-opened");
  trigger.set_event("github");
  trigger.set_flow("review-pr");
  trigger.set_hmac_secret_set(true);
  trigger.set_dedupe("header X-GitHub-Delivery");
  trigger.set_rate_per_minute(60);
  trigger.set_rate_burst(10);
  trigger.set_accepted(4);
  trigger.set_refused(1);
  v1::TriggerDelivery* delivery = trigger.add_recent_deliveries();
  delivery->mutable_at()->set_seconds(1'795'914'000);
  delivery->set_outcome("refused");
  delivery->set_reason("over the trigger's rate");
  delivery->set_retry_after_seconds(6);
  std::ostringstream out;
  PrintTrigger(trigger, 0, out);
  EXPECT_THAT(out.str(), HasSubstr("POST /api/v1/events/github"));
  EXPECT_THAT(out.str(), HasSubstr("auth      signature\n"));
  EXPECT_THAT(out.str(), HasSubstr("dedupe    header X-GitHub-Delivery"));
  EXPECT_THAT(out.str(), HasSubstr("4 accepted, 0 deduped, 1 refused"));
  EXPECT_THAT(out.str(), HasSubstr("over the trigger's rate (retry after 6 s)"));
}

TEST(TriggersCommand, Create_BadFile_ExitsOneWithEveryProblem_WithoutCalling) {
  taskboard::testing::TempDir dir;
  const std::string path = (dir.path() / "bad.yaml").string();
  std::ofstream(path) << "name: t\nevent: github\nflow: f\nargs: {pr: \"$.a[*]\"}\n"
                         "auth: {hmacSecret: short}\n";
  TriggersOptions options;
  options.path = path;
  options.scheduler = "127.0.0.1:1";  // nothing listens: a call would exit 2
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunTriggersCreate(options, out, err), 1) << err.str();
  EXPECT_THAT(err.str(), HasSubstr("args.pr"));
  EXPECT_THAT(err.str(), HasSubstr("auth.hmacSecret"));
  EXPECT_THAT(out.str(), Not(HasSubstr("created")));
}

}  // namespace
}  // namespace taskboard::cli
