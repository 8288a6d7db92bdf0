// Usage a user can trust, across real processes (docs/llm-governance.md):
// an OpenAI-compatible server (tools/fake-llm) that reports negative or
// int64-sized token counts makes no run show negative or wrapped totals; a
// run's usage (what its tasks report) equals what its calls were billed;
// and a normal run on the same scheduler still shows its real usage.

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/llm_call_usage.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using testing::IsOk;

// A full chat completion whose usage says `usage` (raw_body: sent as is).
std::string RawAnswer(const std::string& usage) {
  return absl::StrCat(
      "      raw_body: {id: x, model: fake-model, choices: [{index: 0, message: {role: "
      "assistant, content: done}, finish_reason: stop}], usage: ",
      usage, "}\n");
}

// Negative counts for a prompt that says "negative", int64's largest for
// "huge", and real ones otherwise.
std::string Script() {
  return absl::StrCat(
      "rules:\n"
      "  - name: negative\n"
      "    match: {contains: negative}\n"
      "    respond:\n",
      RawAnswer("{prompt_tokens: -1000000000, completion_tokens: -5}"),
      "  - name: huge\n"
      "    match: {contains: huge}\n"
      "    respond:\n",
      RawAnswer("{prompt_tokens: 9223372036854775807, completion_tokens: 9223372036854775807}"),
      "  - name: normal\n"
      "    respond:\n"
      "      content: done\n"
      "      usage: {prompt_tokens: 10, completion_tokens: 5}\n");
}

class UsageAcrossProcessesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), Script());
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);
    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    // $2 and $10 per million: -1e9 prompt tokens priced as sent is -$2,000.
    std::ofstream(agents / "writer.md") << testing::LlmAgentFileText(
        "writer", llm_->base_url(),
        "maxAttempts: 1\npricing:\n  fake-model: {inputPerMtok: 2, outputPerMtok: 10}\n",
        "You write.");
    testing::ClusterOptions options;
    options.workers = 1;
    options.agents_dir = agents.string();
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  v1::Run Run(const std::string& tasks) {
    absl::StatusOr<std::string> run_id =
        cluster_->Submit(absl::StrCat("name: usage\nkind: board\nboard:\n  tasks:\n", tasks));
    EXPECT_THAT(run_id.status(), IsOk());
    if (!run_id.ok()) return {};
    absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
    EXPECT_THAT(run.status(), IsOk());
    return run.ok() ? *run : v1::Run();
  }

  static void ExpectUsageIsWhatWasBilled(const v1::Run& run) {
    EXPECT_EQ(run.usage().input_tokens(), run.billed().input_tokens());
    EXPECT_EQ(run.usage().output_tokens(), run.billed().output_tokens());
    EXPECT_DOUBLE_EQ(run.usage().cost_usd(), run.billed().cost_usd());
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(UsageAcrossProcessesTest, NegativeCounts_ShowZeroAsBilled_HugeOnesTheCap_ThenANormalRun) {
  v1::Run negative = Run("    - {id: a, agent: writer, task: say negative}\n");
  ASSERT_EQ(negative.status(), v1::RUN_STATUS_COMPLETED) << negative.error() << cluster_->Logs();
  EXPECT_EQ(negative.usage().input_tokens(), 0);
  EXPECT_EQ(negative.usage().output_tokens(), 0);
  EXPECT_EQ(negative.usage().cost_usd(), 0);
  ExpectUsageIsWhatWasBilled(negative);

  v1::Run huge =
      Run("    - {id: a, agent: writer, task: say huge}\n"
          "    - {id: b, agent: writer, task: say huge again}\n");
  ASSERT_EQ(huge.status(), v1::RUN_STATUS_COMPLETED) << huge.error() << cluster_->Logs();
  EXPECT_EQ(huge.usage().input_tokens(), 2 * kMaxCallTokens);
  EXPECT_EQ(huge.usage().output_tokens(), 2 * kMaxCallTokens);
  EXPECT_DOUBLE_EQ(huge.usage().cost_usd(), 2 * kMaxCallUsd);
  ExpectUsageIsWhatWasBilled(huge);

  v1::Run normal = Run("    - {id: a, agent: writer, task: say hello}\n");
  ASSERT_EQ(normal.status(), v1::RUN_STATUS_COMPLETED) << normal.error() << cluster_->Logs();
  EXPECT_EQ(normal.usage().input_tokens(), 10);
  EXPECT_EQ(normal.usage().output_tokens(), 5);
  EXPECT_DOUBLE_EQ(normal.usage().cost_usd(), (10 * 2 + 5 * 10) / 1e6);
  ExpectUsageIsWhatWasBilled(normal);

  // GetUsage's rows (the tenant's day) hold only the clamped numbers.
  v1::GetUsageResponse usage;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().GetUsage(&context, {}, &usage).ok());
  int64_t input = 0;
  for (const v1::UsageRow& row : usage.rows()) input += row.usage().input_tokens();
  EXPECT_EQ(input, 2 * kMaxCallTokens + 10);
}

}  // namespace
}  // namespace taskboard
