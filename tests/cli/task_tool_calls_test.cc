#include "tools/cli/task_tool_calls.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/cli/fake_scheduler.h"

namespace taskboard::cli {
namespace {

using testing::ParseText;

// summarize[3] of run r-7: an executed read, a cache hit on summarize[0]'s
// read, a failed read; the default policy selected one observation.
constexpr char kSummarizeTask[] = R"pb(
  task { task_id: "summarize[3]" run_id: "r-7" }
  prior_work { meta { policy: "declared_deps_only" selected: 1 available: 12 tokens_approx: 420 } }
  tool_calls {
    seq: 5
    run_id: "r-7"
    task_id: "summarize[3]"
    tool_name: "read_file"
    args_json: "{\"path\":\"src/a.cc\"}"
    result_json: "{}"
    duration_ms: 3
  }
  tool_calls {
    seq: 6
    run_id: "r-7"
    task_id: "summarize[3]"
    tool_name: "read_file"
    args_json: "{\"path\":\"README.md\"}"
    result_json: "{}"
    cached: true
    cache_age_ms: 1234
    source_task { run_id: "r-7" task_id: "summarize[0]" }
  }
  tool_calls {
    seq: 7
    run_id: "r-7"
    task_id: "summarize[3]"
    tool_name: "read_file"
    args_json: "{\"path\":\"gone.md\"}"
    error: "file 'gone.md' does not exist\nin the task's working directory"
    duration_ms: 1
  }
)pb";

TEST(TaskToolCalls, CachedAndFailedCalls_MarkedWithAgeSourceAndError) {
  EXPECT_EQ(RenderTaskToolCalls(ParseText<v1::GetTaskResponse>(kSummarizeTask)),
            "summarize[3]  3 calls, 1 cached, 1 failed\n"
            "  prior work: declared_deps_only, 1 of 12 observations, ~420 tokens\n"
            "  ✓ read_file {\"path\":\"src/a.cc\"}  3ms\n"
            "  ✓ read_file {\"path\":\"README.md\"}  (cached 1.2s old, from summarize[0])\n"
            "  ✗ read_file {\"path\":\"gone.md\"}  1ms  error: file 'gone.md' does not exist in "
            "the task's working directory\n");
}

TEST(TaskToolCalls, MoreCallsThanTheLimit_SaysHowToListThemAll) {
  EXPECT_EQ(RenderTaskToolCalls(ParseText<v1::GetTaskResponse>(kSummarizeTask), {.max_calls = 1}),
            "summarize[3]  3 calls, 1 cached, 1 failed\n"
            "  prior work: declared_deps_only, 1 of 12 observations, ~420 tokens\n"
            "  ✓ read_file {\"path\":\"src/a.cc\"}  3ms\n"
            "  … 2 more calls: taskboard show r-7 --task summarize[3]\n");
}

TEST(TaskToolCalls, NoCallsAndNoPriorWork_OneLine) {
  EXPECT_EQ(RenderTaskToolCalls(
                ParseText<v1::GetTaskResponse>(R"pb(task { task_id: "report" run_id: "r-7" })pb")),
            "report  no tool calls\n");
}

TEST(TaskToolCalls, CacheHitFromAnotherRun_NamesThatRun) {
  EXPECT_EQ(RenderTaskToolCalls(ParseText<v1::GetTaskResponse>(R"pb(
              task { task_id: "step-2" run_id: "child-1" }
              tool_calls {
                run_id: "child-1"
                tool_name: "list_files"
                args_json: "{}"
                cached: true
                cache_age_ms: 40
                source_task { run_id: "r-7" task_id: "discover" }
              }
            )pb")),
            "step-2  1 call, 1 cached\n"
            "  ✓ list_files {}  (cached 40ms old, from r-7/discover)\n");
}

TEST(FormatPriorWorkMeta, ExternalPolicyFailed_NamesTheFallbackAndItsReason) {
  EXPECT_EQ(FormatPriorWorkMeta(ParseText<v1::PriorWork>(R"pb(
              narrative: "earlier: read 30 files"
              meta {
                policy: "declared_deps_only"
                selected: 1
                available: 1
                tokens_approx: 12500
                fallback_reason: "policy service 10.0.0.5:9000: DEADLINE_EXCEEDED"
              }
            )pb")),
            "declared_deps_only, 1 of 1 observation, ~12k tokens, with narrative; fallback: "
            "policy service 10.0.0.5:9000: DEADLINE_EXCEEDED");
  EXPECT_EQ(FormatPriorWorkMeta(v1::PriorWork()), "");
}

}  // namespace
}  // namespace taskboard::cli
