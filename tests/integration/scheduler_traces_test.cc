// The scheduler's and the worker's spans together (docs/observability.md#scheduler-spans),
// with real taskboard-scheduler and taskboard-worker processes on port 0
// exporting to an OTLP/HTTP receiver in the test (tests/unit/otel/otlp_receiver.h,
// decoding with the compiled OTLP protos): a SubmitRun traceparent makes the
// run span the caller's child, the scheduler's attempt span sits under it,
// and the worker's task.attempt sits under the scheduler's attempt span.
// Ratio 0 exports nothing; a dead collector does not hold a run up.

#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <utility>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "grpcpp/client_context.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/unit/otel/dead_endpoints.h"
#include "tests/unit/otel/otlp_receiver.h"

namespace taskboard {
namespace {

using ::opentelemetry::proto::trace::v1::Span;
using ::taskboard::otel::testing::OtlpReceiver;
using ::taskboard::otel::testing::RefusingPort;
using testing::Cluster;
using testing::ClusterOptions;
using testing::IsOk;

constexpr char kFlow[] =
    R"({"name": "traced", "phases": [{"id": "a", "task": "echo hi", "agent": "echo"}]})";
constexpr char kCallerTrace[] = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr char kCallerSpan[] = "00f067aa0ba902b7";

ClusterOptions Traced(const std::string& endpoint, const std::string& ratio) {
  ClusterOptions options;
  options.workers = 1;
  options.slots = 1;
  options.scheduler_flags = {"--otlp-endpoint", endpoint, "--trace-sample-ratio", ratio};
  options.worker_flags = {"--otlp-endpoint", endpoint};
  return options;
}

// SubmitRun with `traceparent` as metadata (none when empty).
absl::StatusOr<std::string> SubmitWithTraceparent(Cluster& cluster, const std::string& traceparent) {
  v1::SubmitRunRequest request;
  request.mutable_source()->set_text(kFlow);
  v1::SubmitRunResponse response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  context.set_wait_for_ready(true);
  if (!traceparent.empty()) context.AddMetadata("traceparent", traceparent);
  grpc::Status status = cluster.client().SubmitRun(&context, request, &response);
  if (!status.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }
  return response.run_id();
}

struct ReceivedSpan {
  std::string service;
  Span span;
};

std::vector<ReceivedSpan> AllSpans(const OtlpReceiver& receiver) {
  std::vector<ReceivedSpan> spans;
  for (const auto& request : receiver.requests()) {
    for (const auto& resource : request.request.resource_spans()) {
      std::string service;
      for (const auto& attribute : resource.resource().attributes()) {
        if (attribute.key() == "service.name") service = attribute.value().string_value();
      }
      for (const auto& scope : resource.scope_spans()) {
        for (const Span& span : scope.spans()) spans.push_back({service, span});
      }
    }
  }
  return spans;
}

const ReceivedSpan* Find(const std::vector<ReceivedSpan>& spans, const std::string& service,
                         const std::string& name) {
  for (const ReceivedSpan& span : spans) {
    if (span.service == service && span.span.name() == name) return &span;
  }
  return nullptr;
}

std::string Hex(const std::string& bytes) { return absl::BytesToHexString(bytes); }

// Every span named `names` (service, name) received within `timeout`
// (the batch processors export within their 5 s schedule delay), in that
// order; missing ones are left empty.
std::vector<ReceivedSpan> WaitForNamed(const OtlpReceiver& receiver,
                                       const std::vector<std::pair<std::string, std::string>>& names,
                                       absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<ReceivedSpan> found(names.size());
  while (true) {
    const std::vector<ReceivedSpan> spans = AllSpans(receiver);
    bool all = true;
    for (size_t i = 0; i < names.size(); ++i) {
      const ReceivedSpan* span = Find(spans, names[i].first, names[i].second);
      if (span != nullptr) {
        found[i] = *span;
      } else {
        all = false;
      }
    }
    if (all || absl::Now() > deadline) return found;
    receiver.WaitForSpans(receiver.SpanCount() + 1, absl::Milliseconds(200));
  }
}

TEST(SchedulerTraces, CallersTraceparent_RunUnderCaller_WorkersAttemptUnderSchedulers) {
  OtlpReceiver receiver;
  Cluster cluster(Traced(receiver.endpoint(), "1"));
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = SubmitWithTraceparent(
      cluster, absl::StrCat("00-", kCallerTrace, "-", kCallerSpan, "-01"));
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster.Logs();
  const std::vector<ReceivedSpan> found =
      WaitForNamed(receiver,
                   {{"taskboard-scheduler", "run traced"},
                    {"taskboard-scheduler", "phase a"},
                    {"taskboard-scheduler", "task.attempt"},
                    {"taskboard-worker", "task.attempt"}},
                   absl::Seconds(30));
  for (const ReceivedSpan& span : found) {
    ASSERT_FALSE(span.service.empty()) << "a span is missing; got " << receiver.SpanCount();
  }
  const ReceivedSpan* run_span = &found[0];
  const ReceivedSpan* phase = &found[1];
  const ReceivedSpan* attempt = &found[2];
  const ReceivedSpan* worker = &found[3];
  EXPECT_EQ(Hex(run_span->span.trace_id()), kCallerTrace);
  EXPECT_EQ(Hex(run_span->span.parent_span_id()), kCallerSpan);
  EXPECT_EQ(Hex(phase->span.parent_span_id()), Hex(run_span->span.span_id()));
  EXPECT_EQ(Hex(attempt->span.parent_span_id()), Hex(phase->span.span_id()));
  EXPECT_EQ(Hex(worker->span.trace_id()), kCallerTrace);
  EXPECT_EQ(Hex(worker->span.parent_span_id()), Hex(attempt->span.span_id()))
      << "the worker's task.attempt nests under the scheduler's attempt span";
  std::vector<std::string> events;
  for (const auto& event : attempt->span.events()) events.push_back(event.name());
  EXPECT_THAT(events, ::testing::IsSupersetOf({"dispatched", "running"}));
}

TEST(SchedulerTraces, HttpApiSubmit_TraceparentHeader_MakesTheRunTheCallersChild) {
  OtlpReceiver receiver;
  testing::TempDir files;
  const std::string port_file = (files.path() / "http.port").string();
  ClusterOptions options = Traced(receiver.endpoint(), "1");
  options.scheduler_flags.insert(options.scheduler_flags.end(),
                                 {"--http-listen", "127.0.0.1:0", "--http-port-file", port_file});
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  int port = 0;
  std::ifstream(port_file) >> port;
  ASSERT_GT(port, 0) << cluster.Logs();
  httplib::Client client("127.0.0.1", port);
  const std::string caller_span = "b7ad6b7169203331";
  httplib::Headers headers = {
      {"traceparent", absl::StrCat("00-", kCallerTrace, "-", caller_span, "-01")}};
  httplib::Result submitted =
      client.Post("/api/v1/SubmitRun", headers,
                  nlohmann::json({{"source", {{"text", kFlow}}}}).dump(), "application/json");
  ASSERT_TRUE(submitted);
  ASSERT_EQ(submitted->status, 200) << submitted->body;
  const std::string run_id = nlohmann::json::parse(submitted->body).value("runId", "");
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(run_id);
  ASSERT_THAT(run.status(), IsOk());
  ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster.Logs();
  const std::vector<ReceivedSpan> found =
      WaitForNamed(receiver, {{"taskboard-scheduler", "run traced"}}, absl::Seconds(30));
  ASSERT_FALSE(found[0].service.empty()) << cluster.Logs();
  EXPECT_EQ(Hex(found[0].span.trace_id()), kCallerTrace);
  EXPECT_EQ(Hex(found[0].span.parent_span_id()), caller_span);
}

TEST(SchedulerTraces, RatioZero_NothingIsExported) {
  OtlpReceiver receiver;
  {
    Cluster cluster(Traced(receiver.endpoint(), "0"));
    ASSERT_THAT(cluster.Start(), IsOk());
    absl::StatusOr<std::string> run_id = SubmitWithTraceparent(cluster, "");
    ASSERT_THAT(run_id.status(), IsOk());
    absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id);
    ASSERT_THAT(run.status(), IsOk());
    ASSERT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster.Logs();
    // A stopping service exports what is queued: stop both, then count.
    cluster.KillWorker(0, SIGTERM);
    cluster.KillScheduler(SIGTERM);
  }
  EXPECT_EQ(receiver.SpanCount(), 0);
  EXPECT_EQ(receiver.requests_answered(), 0);
}

TEST(SchedulerTraces, DeadCollector_TheRunStillCompletes) {
  RefusingPort dead;
  Cluster cluster(Traced(dead.endpoint(), "1"));
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = SubmitWithTraceparent(cluster, "");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster.WaitForRun(*run_id, 30'000);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster.Logs();
}

}  // namespace
}  // namespace taskboard
