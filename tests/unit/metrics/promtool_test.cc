// Checks our exposition with the real `promtool check metrics` (Debian package
// `prometheus`, installed by scripts/install-deps.sh --test): it parses the text
// format and lints it (naming, help, units, histogram conventions).

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>

#include "common/metrics/builder.h"
#include "common/metrics/registry.h"
#include "common/metrics/text_format.h"
#include "gtest/gtest.h"

namespace taskboard::metrics {
namespace {

struct PromtoolResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

constexpr char kPromtoolMissing[] =
    "promtool is not installed; run scripts/install-deps.sh --test (Debian package `prometheus`) "
    "to "
    "check the exposition format with it";

bool PromtoolInstalled() { return std::system("command -v promtool >/dev/null 2>&1") == 0; }

// Runs `promtool check metrics` with `exposition` on its stdin.
PromtoolResult CheckMetrics(const std::string& exposition, const std::string& file_name) {
  // The pid keeps concurrent runs (other checkouts on this machine) apart.
  const std::string path = ::testing::TempDir() + "/" + std::to_string(getpid()) + "_" + file_name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << exposition;
  PromtoolResult result;
  FILE* pipe = popen(("promtool check metrics < '" + path + "' 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t read = 0;
  while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.output.append(buffer, read);
  const int status = pclose(pipe);
  std::remove(path.c_str());
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

// Every metric type, with and without labels, constant labels, label values
// that need escaping, and special values.
std::string EveryTypeExposition() {
  Registry registry;
  Family<Counter>& requests = BuildCounter()
                                  .Name("taskboard_http_requests_total")
                                  .Help("HTTP requests served, by path and code.\nTricky \\ help.")
                                  .Labels({{"service", "scheduler"}})
                                  .Register(registry);
  requests.Add({{"path", "/metrics"}, {"code", "200"}}).Increment(41);
  requests.Add({{"path", "/a \"quoted\" \\ back\nslash"}, {"code", "404"}}).Increment();
  requests.Add({{"path", "ünïcödé ✓"}, {"code", "500"}});
  requests.Add({{"path", ""}, {"code", "200"}}).Increment(0.5);

  Family<Gauge>& depth = BuildGauge()
                             .Name("taskboard_ready_queue_depth")
                             .Help("Tasks ready to dispatch, by agent.")
                             .Register(registry);
  depth.Add({{"agent", "shell"}}).Set(12);
  depth.Add({{"agent", "llm"}}).Set(-3.25);
  depth.Add({{"agent", "nan"}}).Set(std::nan(""));
  depth.Add({{"agent", "inf"}}).Set(std::numeric_limits<double>::infinity());
  BuildGauge()
      .Name("taskboard_up")
      .Help("1 while the process serves.")
      .Register(registry)
      .Add({})
      .Set(1);

  Family<Histogram>& duration = BuildHistogram()
                                    .Name("taskboard_task_duration_seconds")
                                    .Help("Task duration from dispatch to result.")
                                    .Register(registry);
  Histogram& shell = duration.Add({{"agent", "shell"}});
  for (double seconds : {0.0005, 0.003, 0.2, 1.0, 7.5, 400.0}) shell.Observe(seconds);
  duration.Add({{"agent", "weird \"x\"\n"}});
  BuildHistogram()
      .Name("taskboard_selection_bytes")
      .Help("Bytes selected by the policy.")
      .Register(registry)
      .Add({}, ExponentialBuckets(64, 4, 8))
      .Observe(5000);
  return SerializeTextFormat(registry.Collect());
}

TEST(Promtool, CheckMetrics_EveryType_PassesWithoutLintOutput) {
  if (!PromtoolInstalled()) GTEST_SKIP() << kPromtoolMissing;
  const std::string exposition = EveryTypeExposition();
  const PromtoolResult result = CheckMetrics(exposition, "every_type.prom");
  EXPECT_EQ(result.exit_code, 0) << result.output << "\n--- exposition:\n" << exposition;
  EXPECT_EQ(result.output, "") << "--- exposition:\n" << exposition;
}

// Guards the test above against passing vacuously (promtool not reading
// stdin, or not linting): a counter without `_total` must be reported.
TEST(Promtool, CheckMetrics_LintProblem_IsReported) {
  if (!PromtoolInstalled()) GTEST_SKIP() << kPromtoolMissing;
  const PromtoolResult result =
      CheckMetrics("# HELP jobs Jobs.\n# TYPE jobs counter\njobs 1\n", "lint_problem.prom");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.output.find("_total"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace taskboard::metrics
