#include "worker/agents/prior_work_format.h"

#include <string>

#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

v1::Observation* Add(v1::PriorWork& prior_work, const std::string& task_id, const std::string& tool,
                     const std::string& args_json, const std::string& result_json,
                     const std::string& run_id = "run-1") {
  v1::Observation* obs = prior_work.add_observations();
  obs->set_run_id(run_id);
  obs->set_task_id(task_id);
  obs->set_tool_name(tool);
  obs->set_args_json(args_json);
  obs->set_result_json(result_json);
  return obs;
}

TEST(FormatPriorWork, Empty_EmptyString) { EXPECT_EQ(FormatPriorWork(v1::PriorWork()), ""); }

TEST(FormatPriorWork, OnlyMeta_EmptyString) {
  v1::PriorWork prior_work;
  prior_work.mutable_meta()->set_policy("none");
  prior_work.mutable_meta()->set_available(12);
  EXPECT_EQ(FormatPriorWork(prior_work, "run-1"), "");
}

TEST(FormatPriorWork, Observations_OneLineEachInOrder) {
  v1::PriorWork prior_work;
  Add(prior_work, "a", "read_file", R"({"path":"package.json"})", R"({"bytes":2,"content":"{}"})");
  Add(prior_work, "b", "search", R"({"q":"foo"})", R"("ok")")->set_cached(true);
  Add(prior_work, "b", "http_get", R"({"url":"x"})", "")->set_error("connection refused");
  Add(prior_work, "", "list_files", "{}", "[]");
  EXPECT_EQ(FormatPriorWork(prior_work, "run-1"),
            "- [a] read_file({\"path\":\"package.json\"}) -> {\"bytes\":2,\"content\":\"{}\"}\n"
            "- [b] search({\"q\":\"foo\"}) -> \"ok\" (cached)\n"
            "- [b] http_get({\"url\":\"x\"}) -> ERROR: connection refused\n"
            "- list_files({}) -> []");
}

TEST(FormatPriorWork, CachedError_ErrorThenCachedFlag) {
  v1::PriorWork prior_work;
  v1::Observation* obs = Add(prior_work, "a", "t", "{}", "");
  obs->set_error("boom");
  obs->set_cached(true);
  EXPECT_EQ(FormatPriorWork(prior_work), "- [a] t({}) -> ERROR: boom (cached)");
}

TEST(FormatPriorWork, OtherRunOfTheRequest_LabelQualifiedWithRunId) {
  v1::PriorWork prior_work;
  Add(prior_work, "step-2", "t", "{}", "1", "child-run");
  Add(prior_work, "plan", "t", "{}", "2", "run-1");
  EXPECT_EQ(FormatPriorWork(prior_work, "run-1"),
            "- [child-run/step-2] t({}) -> 1\n"
            "- [plan] t({}) -> 2");
}

TEST(FormatPriorWork, NoCurrentRunId_LabelIsTaskId) {
  v1::PriorWork prior_work;
  Add(prior_work, "step-2", "t", "{}", "1", "child-run");
  EXPECT_EQ(FormatPriorWork(prior_work), "- [step-2] t({}) -> 1");
}

TEST(FormatPriorWork, LineBreaksInFields_EscapedToKeepOneLine) {
  v1::PriorWork prior_work;
  Add(prior_work, "a", "run", "{}", "")->set_error("exit 2:\nline one\r\nline two");
  Add(prior_work, "a", "t", "{\n  \"k\": 1\n}", "true");
  EXPECT_EQ(FormatPriorWork(prior_work),
            "- [a] run({}) -> ERROR: exit 2:\\nline one\\nline two\n"
            "- [a] t({\\n  \"k\": 1\\n}) -> true");
}

TEST(FormatPriorWork, NoResultNoError_Null) {
  v1::PriorWork prior_work;
  Add(prior_work, "a", "t", "{}", "");
  EXPECT_EQ(FormatPriorWork(prior_work), "- [a] t({}) -> null");
}

TEST(FormatPriorWork, NarrativeAndObservations_SummaryFirstThenRecentCalls) {
  v1::PriorWork prior_work;
  prior_work.set_narrative("Read package.json; version is 1.2.0.");
  Add(prior_work, "c", "t", "{}", "1");
  EXPECT_EQ(FormatPriorWork(prior_work, "run-1"),
            "Summary of earlier work:\n"
            "Read package.json; version is 1.2.0.\n"
            "\n"
            "Most recent tool calls:\n"
            "- [c] t({}) -> 1");
}

TEST(FormatPriorWork, NarrativeOnly_SummaryAlone) {
  v1::PriorWork prior_work;
  prior_work.set_narrative("Nothing found.");
  EXPECT_EQ(FormatPriorWork(prior_work), "Summary of earlier work:\nNothing found.");
}

}  // namespace
}  // namespace taskboard::worker
