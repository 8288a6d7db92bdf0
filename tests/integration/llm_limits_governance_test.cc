// LLM governance across real processes (docs/llm-governance.md): a scheduler
// with --llm-limits, four workers with four slots each, and tools/fake-llm
// enforcing its own requests-per-minute limit the way a provider does (429
// with Retry-After beyond it).
//
// With the scheduler's limits equal to the provider's, no call is ever
// refused and the cluster still runs at the limit; without them, the same
// work gets 429s (so the first test can fail). Budgets pause a run and a
// resume with more budget finishes it without calling the model again for
// the work already done.

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/child_process.h"
#include "common/files.h"
#include "common/json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "scheduler/engine/state/task_states.h"
#include "tests/testing/cluster.h"
#include "tests/testing/fake_llm.h"
#include "tests/testing/prometheus_text.h"
#include "tests/testing/promtool.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Optional;

// fake-llm's own limit, and the scheduler's when it is configured.
constexpr int kRpm = 600;  // 10 calls per second
constexpr int kTasks = 100;

// Every call answers at once (after 20 ms of "thinking") with known usage.
constexpr char kScript[] = R"(rules:
  - name: answer
    respond:
      content: done
      usage: {prompt_tokens: 10, completion_tokens: 5}
      delay_ms: 20
)";

// One LLM call per task.
std::string Board(int tasks, const std::string& options = "") {
  std::string text = absl::StrCat("name: governed\nkind: board\n", options, "board:\n  tasks:\n");
  for (int i = 0; i < tasks; ++i) {
    absl::StrAppend(&text, "    - id: t", i, "\n      agent: writer\n      task: write part ", i,
                    "\n");
  }
  return text;
}

// Tasks that run one after another: t1 <- t2 <- ... (deps).
std::string Chain(int tasks, const std::string& options) {
  std::string text = absl::StrCat("name: chained\nkind: board\n", options, "board:\n  tasks:\n");
  for (int i = 1; i <= tasks; ++i) {
    absl::StrAppend(&text, "    - id: t", i, "\n      agent: writer\n      task: write part ", i,
                    "\n");
    if (i > 1) absl::StrAppend(&text, "      deps: [t", i - 1, "]\n");
  }
  return text;
}

class LlmGovernanceTest : public ::testing::Test {
 protected:
  // Starts fake-llm at kRpm, and a cluster whose scheduler reads `limits`
  // ("" for none); `tokens` (a tokens file's text) turns authentication on,
  // the cluster's client being acme's and the workers the pool's.
  void Start(const std::string& limits, int workers = 4, const std::string& tokens = "",
             const std::string& agent_fields = "") {
    absl::StatusOr<std::unique_ptr<testing::FakeLlm>> llm =
        testing::FakeLlm::StartWithScript(dir_.path(), kScript, {"--rpm", std::to_string(kRpm)});
    ASSERT_THAT(llm.status(), IsOk());
    llm_ = *std::move(llm);

    const std::filesystem::path agents = dir_.path() / "agents";
    std::filesystem::create_directory(agents);
    // One attempt per call: a 429 that reached the agent fails its task.
    std::ofstream(agents / "writer.md") << testing::LlmAgentFileText(
        "writer", llm_->base_url(), absl::StrCat("maxAttempts: 1\nmaxTokens: 20\n", agent_fields),
        "You write one part.");

    testing::ClusterOptions options;
    options.workers = workers;
    options.slots = 4;
    options.agents_dir = agents.string();
    options.scheduler_flags = {"--metrics-listen", "127.0.0.1:0", "--metrics-port-file",
                               MetricsPortFile().string()};
    if (!limits.empty()) {
      std::ofstream(LimitsPath()) << limits;
      options.scheduler_flags.insert(options.scheduler_flags.end(),
                                     {"--llm-limits", LimitsPath().string()});
    }
    if (!tokens.empty()) {
      const std::filesystem::path file = dir_.path() / "tokens.yaml";
      std::ofstream(file) << tokens;
      options.scheduler_flags.insert(options.scheduler_flags.end(),
                                     {"--auth-tokens", file.string()});
      options.worker_flags = {"--token", kWorkerToken};
      options.client_token = kAcmeToken;
    }
    cluster_ = std::make_unique<testing::Cluster>(options);
    ASSERT_THAT(cluster_->Start(), IsOk());
  }

  static constexpr char kAcmeToken[] = "acme-token-0123456789";
  static constexpr char kGlobexToken[] = "globex-token-0123456789";
  static constexpr char kWorkerToken[] = "worker-token-0123456789";

  int64_t FakeStat(const std::string& name) {
    absl::StatusOr<Json> stats = llm_->Stats();
    EXPECT_THAT(stats.status(), IsOk());
    return stats.ok() ? (*stats)[name].get<int64_t>() : -1;
  }

  std::filesystem::path LimitsPath() const { return dir_.path() / "llm-limits.yaml"; }
  std::filesystem::path MetricsPortFile() const { return dir_.path() / "metrics.port"; }

  // The scheduler's /metrics.
  std::string Metrics() {
    int port = 0;
    std::ifstream(MetricsPortFile()) >> port;
    httplib::Client http("127.0.0.1", port);
    httplib::Result response = http.Get("/metrics");
    EXPECT_TRUE(response && response->status == 200) << "no /metrics on port " << port;
    return response ? response->body : "";
  }

  struct CliResult {
    int exit_code = -1;
    std::string output;
  };
  // The `taskboard` binary with `args` against the cluster.
  CliResult Taskboard(std::vector<std::string> args) {
    args.insert(args.begin(), testing::BinaryPath("taskboard"));
    args.insert(args.end(), {"--scheduler", cluster_->address()});
    const std::string log = (dir_.path() / absl::StrCat("cli-", ++cli_calls_, ".log")).string();
    absl::StatusOr<std::unique_ptr<ChildProcess>> cli = ChildProcess::Spawn(args, log);
    if (!cli.ok()) return {-1, std::string(cli.status().message())};
    return {(*cli)->WaitFor(60'000).value_or(-1), ReadFileOrEmpty(log)};
  }
  int cli_calls_ = 0;

  // GetUsage as `client`'s tenant; a test failure when it is refused.
  static v1::GetUsageResponse Usage(v1::Scheduler::StubInterface& client,
                                    const std::string& tenant) {
    v1::GetUsageRequest request;
    request.set_tenant(tenant);
    v1::GetUsageResponse response;
    grpc::ClientContext context;
    const grpc::Status status = client.GetUsage(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  testing::TempDir dir_;
  std::unique_ptr<testing::FakeLlm> llm_;
  std::unique_ptr<testing::Cluster> cluster_;
};

TEST_F(LlmGovernanceTest, LimitsEqualToTheProvidersLetNo429ThroughAndRunAtTheLimit) {
  Start(absl::StrCat("models:\n  fake-model:\n    rpm: ", kRpm,
                     "\n    price: {input: 1, output: 2}\n"));
  absl::StatusOr<std::string> run_id = cluster_->Submit(Board(kTasks));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 120'000);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();

  // Sixteen agents wanted the model at once; the provider refused nobody.
  EXPECT_EQ(FakeStat("rate_limited"), 0);
  EXPECT_EQ(FakeStat("admitted"), kTasks);

  // And the cluster used the limit: past the first burst, calls arrived at
  // (at least 90% of) 10 per second.
  std::vector<int64_t> arrivals;
  for (const Json& entry : llm_->LogEntries()) arrivals.push_back(entry["time_ms"].get<int64_t>());
  std::sort(arrivals.begin(), arrivals.end());
  ASSERT_EQ(arrivals.size(), static_cast<size_t>(kTasks));
  constexpr int kSkip = 10;
  const double seconds = static_cast<double>(arrivals.back() - arrivals[kSkip]) / 1000.0;
  const double per_second = (kTasks - 1 - kSkip) / seconds;
  EXPECT_GE(per_second, 0.9 * kRpm / 60.0) << "calls per second past the first burst";
  EXPECT_LE(per_second, 1.05 * kRpm / 60.0) << "calls per second past the first burst";

  // Every call was billed to the run, at the scheduler's prices.
  EXPECT_EQ(run->billed().input_tokens(), 10 * kTasks);
  EXPECT_EQ(run->billed().output_tokens(), 5 * kTasks);
  EXPECT_EQ(run->billed().turns(), kTasks);
  EXPECT_NEAR(run->billed().cost_usd(), kTasks * (10 * 1 + 5 * 2) / 1e6, 1e-9);

  // GetUsage shows the day's row for the model.
  v1::GetUsageRequest request;
  v1::GetUsageResponse usage;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().GetUsage(&context, request, &usage).ok());
  ASSERT_EQ(usage.rows_size(), 1);
  EXPECT_EQ(usage.rows(0).model(), "fake-model");
  EXPECT_EQ(usage.rows(0).requests(), kTasks);
  EXPECT_EQ(usage.rows(0).rate_limited(), 0);
  EXPECT_EQ(usage.rows(0).usage().output_tokens(), 5 * kTasks);

  // `taskboard usage` prints it.
  const CliResult cli = Taskboard({"usage"});
  EXPECT_EQ(cli.exit_code, 0) << cli.output;
  EXPECT_THAT(cli.output, HasSubstr("fake-model"));
  EXPECT_THAT(cli.output, HasSubstr("TOTAL"));

  // And the metrics count it, in a form promtool accepts.
  const std::string metrics = Metrics();
  EXPECT_THAT(
      testing::SampleValue(
          metrics, R"(taskboard_llm_tokens_total{kind="output",model="fake-model",tenant=""})"),
      Optional(5 * kTasks))
      << metrics;
  EXPECT_THAT(
      testing::SampleValue(
          metrics, R"(taskboard_llm_requests_total{model="fake-model",outcome="ok",tenant=""})"),
      Optional(kTasks));
  EXPECT_THAT(
      testing::SampleValue(metrics, R"(taskboard_llm_limit{kind="rpm",model="fake-model"})"),
      Optional(kRpm));
  EXPECT_THAT(testing::SampleValue(metrics,
                                   R"(taskboard_llm_grant_wait_seconds_count{model="fake-model"})"),
              Optional(kTasks));
  std::optional<testing::Promtool> promtool =
      testing::CheckMetrics(metrics, (dir_.path() / "scheduler.metrics").string());
  if (promtool.has_value()) {
    EXPECT_EQ(promtool->exit_code, 0) << promtool->output;
    EXPECT_EQ(promtool->output, "") << metrics;
  }
}

// The scheduler believes the model allows twice what the provider does. The
// first 429 pauses the model and halves its rate for every worker, which is
// what the provider allows: the refusals stop after the first burst, and
// the tasks (three attempts each) all complete.
TEST_F(LlmGovernanceTest, AProviders429SlowsTheWholeClusterDown) {
  Start(absl::StrCat("models:\n  fake-model:\n    rpm: ", 2 * kRpm, "\n"), /*workers=*/4,
        /*tokens=*/"", "maxAttempts: 3\n");
  absl::StatusOr<std::string> run_id = cluster_->Submit(Board(kTasks));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 120'000);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  const int64_t refused = FakeStat("rate_limited");
  EXPECT_GT(refused, 0) << "the provider never refused: the test shows nothing";
  EXPECT_LE(refused, 16) << "refusals went on after the first 429 slowed the model down";
  const std::string metrics = Metrics();
  EXPECT_THAT(
      testing::SampleValue(metrics, R"(taskboard_llm_limit{kind="rpm",model="fake-model"})"),
      Optional(::testing::Le(kRpm)))
      << "the model still runs at its configured rate";
}

TEST_F(LlmGovernanceTest, WithoutLimitsTheProvidersRateLimitReachesTheAgents) {
  Start("");
  absl::StatusOr<std::string> run_id = cluster_->Submit(Board(kTasks));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 120'000);
  ASSERT_THAT(run.status(), IsOk());
  // Sixteen agents at once against a bucket of ten: some were refused, and
  // with one attempt each, their tasks failed.
  EXPECT_GT(FakeStat("rate_limited"), 0);
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  // The refused calls were billed as calls (no tokens) and counted as 429s.
  v1::GetUsageRequest request;
  v1::GetUsageResponse usage;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().GetUsage(&context, request, &usage).ok());
  ASSERT_EQ(usage.rows_size(), 1);
  EXPECT_EQ(usage.rows(0).rate_limited(), FakeStat("rate_limited"));
}

// Output costs $0.001 a token and input nothing: a call may cost $0.02 (its
// maxTokens of 20) and costs $0.005 (5 tokens), so a budget of $0.03 lets
// three calls through and stops the fourth.
constexpr char kPricedLimits[] = R"(models:
  fake-model:
    price: {input: 0, output: 1000}
)";

TEST_F(LlmGovernanceTest, ABudgetPausesTheRunAndAResumeWithMoreFinishesIt) {
  Start(kPricedLimits, /*workers=*/1);
  absl::StatusOr<std::string> run_id = cluster_->Submit(Chain(5, "budget: {usd: 0.03}\n"));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_PAUSED) << run->error() << cluster_->Logs();
  EXPECT_THAT(run->error(), HasSubstr(absl::StrCat("run ", *run_id, "'s budget of $0.0300")));
  EXPECT_THAT(run->error(), HasSubstr("--budget-usd"));
  EXPECT_EQ(FakeStat("requests"), 3);
  EXPECT_NEAR(run->billed().cost_usd(), 0.015, 1e-9);

  // Not more than it billed: refused, saying so.
  {
    v1::ResumeRunRequest request;
    request.set_run_id(*run_id);
    request.set_budget_usd(0.01);
    v1::ResumeRunResponse response;
    grpc::ClientContext context;
    grpc::Status status = cluster_->client().ResumeRun(&context, request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(status.error_message(), HasSubstr("billed $0.0150 already"));
  }
  // `taskboard show` says why it stopped and how to go on; `taskboard
  // resume --budget-usd` does, following the run to its end.
  const CliResult shown = Taskboard({"show", *run_id});
  EXPECT_THAT(shown.output, HasSubstr("of budget $0.03"));
  EXPECT_THAT(shown.output, HasSubstr("--budget-usd"));
  const CliResult resumed = Taskboard({"resume", *run_id, "--budget-usd", "1"});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  // The three finished tasks were kept: two more calls, not five.
  EXPECT_EQ(FakeStat("requests"), 5);
  EXPECT_DOUBLE_EQ(run->budget().usd(), 1);
  EXPECT_NEAR(run->billed().cost_usd(), 0.025, 1e-9);
}

TEST_F(LlmGovernanceTest, OnBudgetFailFailsTheTaskNamingTheBudget) {
  Start(kPricedLimits, /*workers=*/1);
  absl::StatusOr<std::string> run_id =
      cluster_->Submit(Chain(5, "budget: {usd: 0.03}\nonBudget: fail\n"));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_FAILED) << cluster_->Logs();
  EXPECT_EQ(FakeStat("requests"), 3);
  v1::GetTaskRequest request;
  request.set_run_id(*run_id);
  request.set_task_id("t4");
  v1::GetTaskResponse task;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().GetTask(&context, request, &task).ok());
  EXPECT_EQ(task.task().state(), v1::TASK_STATE_FAILED);
  EXPECT_THAT(task.task().error(), HasSubstr("budget of $0.0300 is reached"));
}

TEST_F(LlmGovernanceTest, ModelsTheLimitsFileDoesNotPriceAreBilledAtTheAgentFilesPrice) {
  Start("models:\n  fake-model: {rpm: 6000}\n", /*workers=*/1, /*tokens=*/"",
        "pricing:\n  fake-model: {inputPerMtok: 1, outputPerMtok: 2}\n");
  absl::StatusOr<std::string> run_id = cluster_->Submit(Board(3));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  EXPECT_NEAR(run->billed().cost_usd(), 3 * (10 * 1 + 5 * 2) / 1e6, 1e-12);
  EXPECT_NEAR(run->usage().cost_usd(), run->billed().cost_usd(), 1e-12);
}

// One call per 10 s: three calls would take 20 s. The limits file is then
// raised and the scheduler sent SIGHUP: the waiting calls go at once. A file
// with a mistake sent meanwhile changes nothing.
TEST_F(LlmGovernanceTest, SighupRereadsTheLimitsFile) {
  Start("models:\n  fake-model: {rpm: 6}\n", /*workers=*/1);
  absl::StatusOr<std::string> run_id = cluster_->Submit(Board(3));
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster_->WaitUntil(
                  *run_id, [](const v1::Run& run) { return run.tasks_done() >= 1; }, 30'000),
              IsOk());

  std::ofstream(LimitsPath()) << "models:\n  fake-model: {rpm: fast}\n";
  cluster_->scheduler()->Signal(SIGHUP);
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*run_id, 2'000);
  EXPECT_FALSE(run.ok()) << "a limits file with a mistake was applied";

  std::ofstream(LimitsPath()) << "models:\n  fake-model: {rpm: 6000}\n";
  cluster_->scheduler()->Signal(SIGHUP);
  run = cluster_->WaitForRun(*run_id, 6'000);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_THAT(cluster_->Logs(), HasSubstr("llm limits not re-read"));
}

TEST(LlmLimitsStartupTest, AMistakeInTheLimitsFile_SchedulerExitsNamingIt) {
  testing::TempDir dir;
  const std::string limits = (dir.path() / "limits.yaml").string();
  std::ofstream(limits) << "models:\n  gpt-4o: {rmp: 500}\n";
  const std::string log = (dir.path() / "scheduler.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler =
      ChildProcess::Spawn({testing::BinaryPath("taskboard-scheduler"), "--memory", "--listen",
                           "127.0.0.1:0", "--llm-limits", limits},
                          log);
  ASSERT_THAT(scheduler.status(), IsOk());
  EXPECT_EQ((*scheduler)->WaitFor(30'000), 2);
  const std::string output = ReadFileOrEmpty(log);
  EXPECT_THAT(output, HasSubstr(limits));
  EXPECT_THAT(output, HasSubstr("models.gpt-4o.rmp: unknown key"));
}

constexpr char kTwoTenants[] = R"(tokens:
  - {token: acme-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: globex-token-0123456789, name: bob, role: client, tenant: globex}
  - {token: worker-token-0123456789, name: pool, role: worker}
)";

// acme's 100-task board saturates the model (and every slot) before
// globex's 5-task board arrives: globex still gets every other place, at
// dispatch and at the model, and finishes while acme is far from done.
TEST_F(LlmGovernanceTest, TwoTenantsBothProgressAtTheSharedLimit) {
  Start(absl::StrCat("models:\n  fake-model:\n    rpm: ", kRpm, "\n"), /*workers=*/4, kTwoTenants);
  absl::StatusOr<std::string> acme = cluster_->Submit(Board(kTasks));
  ASSERT_THAT(acme.status(), IsOk());
  ASSERT_THAT(cluster_->WaitUntil(
                  *acme, [](const v1::Run& run) { return run.tasks_done() >= 10; }, 30'000),
              IsOk());

  auto globex = v1::Scheduler::NewStub(testing::TestChannel(cluster_->address(), kGlobexToken));
  v1::SubmitRunRequest submit;
  submit.mutable_source()->set_text(Board(5));
  v1::SubmitRunResponse submitted;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(globex->SubmitRun(&context, submit, &submitted).ok());
  }
  v1::Run globex_run;
  for (int i = 0; i < 300 && !engine::IsTerminal(globex_run.status()); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    v1::GetRunRequest request;
    request.set_run_id(submitted.run_id());
    v1::GetRunResponse response;
    grpc::ClientContext context;
    if (globex->GetRun(&context, request, &response).ok()) globex_run = response.run();
  }
  ASSERT_EQ(globex_run.status(), v1::RUN_STATUS_COMPLETED) << cluster_->Logs();
  absl::StatusOr<v1::Run> acme_now = cluster_->GetRun(*acme);
  ASSERT_THAT(acme_now.status(), IsOk());
  EXPECT_EQ(acme_now->status(), v1::RUN_STATUS_RUNNING);
  EXPECT_LT(acme_now->tasks_done(), kTasks - 30) << "globex waited for most of acme's board";

  absl::StatusOr<v1::Run> acme_done = cluster_->WaitForRun(*acme, 120'000);
  ASSERT_THAT(acme_done.status(), IsOk());
  EXPECT_EQ(acme_done->status(), v1::RUN_STATUS_COMPLETED);
  EXPECT_EQ(FakeStat("rate_limited"), 0);

  // Both tenants' calls were billed to them.
  v1::GetUsageRequest request;
  v1::GetUsageResponse usage;
  grpc::ClientContext context;
  ASSERT_TRUE(globex->GetUsage(&context, request, &usage).ok());
  ASSERT_EQ(usage.rows_size(), 1);
  EXPECT_EQ(usage.rows(0).tenant(), "globex");
  EXPECT_EQ(usage.rows(0).requests(), 5);
  // A tenant reads its own usage only.
  request.set_tenant("acme");
  grpc::ClientContext other;
  grpc::Status refused = globex->GetUsage(&other, request, &usage);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("reads tenant 'globex' only"));
}

// acme may spend $0.03 a day: its chained run pauses at the fourth call,
// naming the tenant's budget, while globex's run goes on. GetUsage shows each
// tenant its own budget and what it billed today, and refuses another
// tenant's. Raised in the limits file (SIGHUP), acme's run resumes and
// finishes.
TEST_F(LlmGovernanceTest, ATenantsDailyBudgetPausesItsRunsOnly) {
  const std::string limits = R"(models:
  fake-model:
    price: {input: 0, output: 1000}
tenants:
  acme:
    budget: {usd: 0.03, period: day}
  globex:
    budget: {tokens: 1000000, period: month}
)";
  Start(limits, /*workers=*/1, kTwoTenants);
  absl::StatusOr<std::string> acme = cluster_->Submit(Chain(5, ""));
  ASSERT_THAT(acme.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_->WaitForRun(*acme);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_PAUSED) << run->error() << cluster_->Logs();
  EXPECT_THAT(run->error(), HasSubstr("tenant acme's daily budget of $0.0300 is reached"));
  EXPECT_EQ(FakeStat("requests"), 3);

  // acme's budget next to its three calls: 15 tokens each, $0.005 each.
  const v1::GetUsageResponse acme_usage = Usage(cluster_->client(), "");
  ASSERT_EQ(acme_usage.budgets_size(), 1) << acme_usage.DebugString();
  const v1::TenantBudget& acme_budget = acme_usage.budgets(0);
  EXPECT_EQ(acme_budget.tenant(), "acme");
  EXPECT_EQ(acme_budget.period(), "day");
  EXPECT_EQ(acme_budget.period_start().seconds() % 86400, 0);
  EXPECT_LE(absl::Now() - absl::FromUnixSeconds(acme_budget.period_start().seconds()),
            absl::Hours(24));
  EXPECT_DOUBLE_EQ(acme_budget.budget_usd(), 0.03);
  EXPECT_EQ(acme_budget.budget_tokens(), 0);
  EXPECT_NEAR(acme_budget.billed_usd(), 0.015, 1e-9);
  EXPECT_EQ(acme_budget.billed_tokens(), 45);

  auto globex = v1::Scheduler::NewStub(testing::TestChannel(cluster_->address(), kGlobexToken));
  v1::SubmitRunRequest submit;
  submit.mutable_source()->set_text(Chain(2, ""));
  v1::SubmitRunResponse submitted;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(globex->SubmitRun(&context, submit, &submitted).ok());
  }
  ASSERT_THAT(cluster_->WaitUntil(
                  *acme, [&](const v1::Run&) { return FakeStat("requests") >= 5; }, 30'000),
              IsOk());

  // globex reads its own budget only, and not acme's; its two calls are
  // billed once their reports arrive.
  v1::GetUsageResponse globex_usage = Usage(*globex, "");
  for (const absl::Time deadline = absl::Now() + absl::Seconds(30);
       absl::Now() < deadline && globex_usage.budgets_size() == 1 &&
       globex_usage.budgets(0).billed_tokens() < 30;
       globex_usage = Usage(*globex, "")) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(globex_usage.budgets_size(), 1) << globex_usage.DebugString();
  EXPECT_EQ(globex_usage.budgets(0).tenant(), "globex");
  EXPECT_EQ(globex_usage.budgets(0).period(), "month");
  EXPECT_EQ(globex_usage.budgets(0).budget_tokens(), 1000000);
  EXPECT_EQ(globex_usage.budgets(0).billed_tokens(), 30);
  {
    v1::GetUsageRequest request;
    request.set_tenant("acme");
    v1::GetUsageResponse refused;
    grpc::ClientContext context;
    EXPECT_EQ(globex->GetUsage(&context, request, &refused).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(refused.budgets_size(), 0);
  }

  std::ofstream(LimitsPath()) << absl::StrReplaceAll(limits, {{"usd: 0.03", "usd: 1"}});
  cluster_->scheduler()->Signal(SIGHUP);
  for (int i = 0; i < 200 && cluster_->Logs().find("llm limits reloaded") == std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  v1::ResumeRunRequest resume;
  resume.set_run_id(*acme);
  v1::ResumeRunResponse resumed;
  grpc::ClientContext context;
  ASSERT_TRUE(cluster_->client().ResumeRun(&context, resume, &resumed).ok());
  // The budget shown is the reloaded one.
  EXPECT_DOUBLE_EQ(Usage(cluster_->client(), "acme").budgets(0).budget_usd(), 1);
  run = cluster_->WaitForRun(*acme);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error() << cluster_->Logs();
  EXPECT_EQ(FakeStat("requests"), 7);  // 3 + globex's 2 + acme's last 2
}

}  // namespace
}  // namespace taskboard
