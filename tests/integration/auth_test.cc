// Security across real processes (docs/security.md): bearer tokens and roles
// on both services, tenant isolation of runs and of the tool cache, the
// tokens file's startup error and SIGHUP reload, and --max-request-bytes.
// TLS and mTLS are in tls_test.cc.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "scheduler/flow/proto_value.h"
#include "taskboard/v1/worker.grpc.pb.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/test_channel.h"

namespace taskboard {
namespace {

using ::taskboard::testing::ClusterOptions;
using ::taskboard::testing::IsOk;
using ::taskboard::testing::TestChannel;
using ::testing::HasSubstr;

constexpr char kTenantA[] = "tenant-a-token-0123456789";
constexpr char kTenantB[] = "tenant-b-token-0123456789";
constexpr char kWorker[] = "worker-token-0123456789";
constexpr char kAdmin[] = "admin-token-0123456789";

constexpr char kTokens[] = R"(tokens:
  - {token: tenant-a-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: tenant-b-token-0123456789, name: bob, role: client, tenant: globex}
  - {token: worker-token-0123456789, name: pool, role: worker}
  - {token: admin-token-0123456789, name: ops, role: admin}
)";

// The tokens file, written once for the test binary.
const std::string& TokensPath() {
  static testing::TempDir dir;
  static const std::string path = [] {
    std::string file = (dir.path() / "tokens.yaml").string();
    std::ofstream(file) << kTokens;
    return file;
  }();
  return path;
}

ClusterOptions Authenticated() {
  ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--auth-tokens", TokensPath()};
  options.worker_flags = {"--token", kWorker};
  options.client_token = kTenantA;  // the cluster's own calls are tenant A's
  return options;
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  return context;
}

constexpr char kSlowFlow[] = R"(
name: slow
phases:
  - id: a
    agent: echo
    task: sleep 2 done
)";

class AuthTest : public testing::ClusterTest {
 protected:
  AuthTest() : ClusterTest(Authenticated()) {}

  std::unique_ptr<v1::Scheduler::Stub> As(const std::string& token) {
    return v1::Scheduler::NewStub(TestChannel(cluster_.address(), token));
  }

  grpc::Status GetRun(const std::string& token, const std::string& run_id) {
    v1::GetRunRequest request;
    request.set_run_id(run_id);
    v1::GetRunResponse response;
    return As(token)->GetRun(Context().get(), request, &response);
  }

  grpc::Status Submit(const std::string& token, const std::string& idempotency_key,
                      v1::SubmitRunResponse* response) {
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(kSlowFlow);
    request.set_idempotency_key(idempotency_key);
    return As(token)->SubmitRun(Context().get(), request, response);
  }

  // The status a WorkerGateway stream ends with when it says Hello.
  grpc::Status ConnectWorker(const std::string& token) {
    auto stub = v1::WorkerGateway::NewStub(TestChannel(cluster_.address(), token));
    auto context = Context();
    auto stream = stub->Connect(context.get());
    v1::ConnectRequest hello;
    hello.mutable_hello()->set_worker_id("intruder");
    stream->Write(hello);
    stream->WritesDone();
    v1::ConnectResponse response;
    while (stream->Read(&response)) {
    }
    return stream->Finish();
  }
};

TEST_F(AuthTest, NoToken_UnauthenticatedSayingHowToPassOne) {
  grpc::Status status = GetRun("", "r-any");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("authorization: Bearer"));
  EXPECT_THAT(status.error_message(), HasSubstr("--token"));

  v1::SubmitRunResponse response;
  EXPECT_EQ(Submit("", "", &response).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ConnectWorker("").error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthTest, UnknownToken_Unauthenticated) {
  EXPECT_EQ(GetRun("tenant-c-token-0123456789", "r-any").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ConnectWorker("tenant-c-token-0123456789").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthTest, WrongRole_PermissionDeniedNamingTheRoleNeeded) {
  v1::SubmitRunResponse submitted;
  grpc::Status worker_submits = Submit(kWorker, "", &submitted);
  EXPECT_EQ(worker_submits.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(worker_submits.error_message(), HasSubstr("needs role client or admin"));

  v1::ListWorkersResponse workers;
  grpc::Status client_lists = As(kTenantA)->ListWorkers(Context().get(), {}, &workers);
  EXPECT_EQ(client_lists.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(client_lists.error_message(), HasSubstr("needs role admin"));

  v1::DrainWorkerRequest drain;
  drain.set_worker_id("worker-0");
  v1::DrainWorkerResponse drained;
  EXPECT_EQ(As(kTenantA)->DrainWorker(Context().get(), drain, &drained).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  grpc::Status client_connects = ConnectWorker(kTenantA);
  EXPECT_EQ(client_connects.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(client_connects.error_message(), HasSubstr("needs role worker or admin"));
}

TEST_F(AuthTest, HealthCheck_NeedsNoToken) {
  // grpc.health.v1.Health/Check with an empty request (the whole server).
  grpc::GenericStub stub(TestChannel(cluster_.address()));
  grpc::Slice empty("");
  grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  auto context = Context();
  std::promise<grpc::Status> done;
  stub.UnaryCall(context.get(), "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                 &response, [&](grpc::Status status) { done.set_value(std::move(status)); });
  grpc::Status status = done.get_future().get();
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
}

TEST_F(AuthTest, WorkerWithItsToken_RunsTasks_AdminSeesIt) {
  absl::StatusOr<std::string> run_id = cluster_.Submit(
      "name: one\nphases:\n"
      "  - id: a\n    agent: echo\n"
      "    task: echo hi\n");
  ASSERT_THAT(run_id.status(), IsOk());
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster_.Logs();

  v1::ListWorkersResponse workers;
  ASSERT_TRUE(As(kAdmin)->ListWorkers(Context().get(), {}, &workers).ok());
  ASSERT_EQ(workers.workers_size(), 1);
  EXPECT_EQ(workers.workers(0).worker_id(), "worker-0");
}

TEST_F(AuthTest, OtherTenant_CannotReadWatchCancelOrResume_AnswersAsIfTheRunDidNotExist) {
  v1::SubmitRunResponse submitted;
  ASSERT_TRUE(Submit(kTenantA, "", &submitted).ok());
  const std::string run_id = submitted.run_id();
  // What a run that does not exist answers, with this run's id.
  const std::string missing = "run-0000000000notthere";
  grpc::Status unknown = GetRun(kTenantB, missing);
  ASSERT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  const std::string not_found = absl::StrReplaceAll(unknown.error_message(), {{missing, run_id}});

  grpc::Status get = GetRun(kTenantB, run_id);
  EXPECT_EQ(get.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(get.error_message(), not_found);

  v1::GetTaskRequest task;
  task.set_run_id(run_id);
  task.set_task_id("a");
  v1::GetTaskResponse task_response;
  EXPECT_EQ(As(kTenantB)->GetTask(Context().get(), task, &task_response).error_code(),
            grpc::StatusCode::NOT_FOUND);

  v1::WatchRunRequest watch;
  watch.set_run_id(run_id);
  auto watch_context = Context();
  auto reader = As(kTenantB)->WatchRun(watch_context.get(), watch);
  v1::WatchRunResponse event;
  int events = 0;
  while (reader->Read(&event)) ++events;
  grpc::Status watched = reader->Finish();
  EXPECT_EQ(watched.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(watched.error_message(), not_found);
  EXPECT_EQ(events, 0);

  v1::CancelRunRequest cancel;
  cancel.set_run_id(run_id);
  v1::CancelRunResponse cancel_response;
  grpc::Status cancelled = As(kTenantB)->CancelRun(Context().get(), cancel, &cancel_response);
  EXPECT_EQ(cancelled.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(cancelled.error_message(), not_found);

  v1::ResumeRunRequest resume;
  resume.set_run_id(run_id);
  v1::ResumeRunResponse resume_response;
  EXPECT_EQ(As(kTenantB)->ResumeRun(Context().get(), resume, &resume_response).error_code(),
            grpc::StatusCode::NOT_FOUND);

  v1::ListRunsResponse listed_b;
  ASSERT_TRUE(As(kTenantB)->ListRuns(Context().get(), {}, &listed_b).ok());
  EXPECT_EQ(listed_b.runs_size(), 0);
  v1::ListRunsResponse listed_a;
  ASSERT_TRUE(As(kTenantA)->ListRuns(Context().get(), {}, &listed_a).ok());
  ASSERT_EQ(listed_a.runs_size(), 1);
  EXPECT_EQ(listed_a.runs(0).run_id(), run_id);
  v1::ListRunsResponse listed_admin;
  ASSERT_TRUE(As(kAdmin)->ListRuns(Context().get(), {}, &listed_admin).ok());
  EXPECT_EQ(listed_admin.runs_size(), 1);
  EXPECT_TRUE(GetRun(kAdmin, run_id).ok());

  // Tenant B's cancel did nothing: the run completes; its owner watches it.
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster_.Logs();
  absl::StatusOr<std::vector<v1::RunEvent>> events_a = cluster_.WatchToEnd(run_id);
  ASSERT_THAT(events_a.status(), IsOk());
  EXPECT_FALSE(events_a->empty());
}

TEST_F(AuthTest, ListRunsByTenant_AdminsFilterClientsReadOnlyTheirOwn) {
  v1::SubmitRunResponse a;
  v1::SubmitRunResponse b;
  ASSERT_TRUE(Submit(kTenantA, "", &a).ok());
  ASSERT_TRUE(Submit(kTenantB, "", &b).ok());

  v1::ListRunsResponse all;
  ASSERT_TRUE(As(kAdmin)->ListRuns(Context().get(), {}, &all).ok());
  ASSERT_EQ(all.runs_size(), 2);
  std::set<std::string> tenants;
  for (const v1::Run& run : all.runs()) tenants.insert(run.tenant());
  EXPECT_EQ(tenants, (std::set<std::string>{"acme", "globex"}));

  v1::ListRunsRequest only_globex;
  only_globex.set_tenant("globex");
  v1::ListRunsResponse globex;
  ASSERT_TRUE(As(kAdmin)->ListRuns(Context().get(), only_globex, &globex).ok());
  ASSERT_EQ(globex.runs_size(), 1);
  EXPECT_EQ(globex.runs(0).run_id(), b.run_id());
  EXPECT_EQ(globex.runs(0).tenant(), "globex");

  // A client token reads its own tenant, named or not, and no other.
  v1::ListRunsRequest own;
  own.set_tenant("acme");
  v1::ListRunsResponse acme;
  ASSERT_TRUE(As(kTenantA)->ListRuns(Context().get(), own, &acme).ok());
  ASSERT_EQ(acme.runs_size(), 1);
  EXPECT_EQ(acme.runs(0).run_id(), a.run_id());
  v1::ListRunsResponse refused;
  grpc::Status other = As(kTenantA)->ListRuns(Context().get(), only_globex, &refused);
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(other.error_message(), HasSubstr("reads tenant 'acme' only"));
  EXPECT_EQ(refused.runs_size(), 0);
}

TEST_F(AuthTest, IdempotencyKey_ScopedPerTenant) {
  v1::SubmitRunResponse a1, a2, b1;
  ASSERT_TRUE(Submit(kTenantA, "nightly-1", &a1).ok());
  ASSERT_TRUE(Submit(kTenantA, "nightly-1", &a2).ok());
  ASSERT_TRUE(Submit(kTenantB, "nightly-1", &b1).ok());
  EXPECT_EQ(a2.run_id(), a1.run_id());
  EXPECT_TRUE(a2.existing());
  EXPECT_NE(b1.run_id(), a1.run_id());
  EXPECT_FALSE(b1.existing());
  EXPECT_TRUE(GetRun(kTenantB, b1.run_id()).ok());
}

TEST_F(AuthTest, SavedFlows_EachTenantSeesOnlyItsOwn) {
  v1::SaveFlowRequest save;
  save.mutable_source()->set_text("name: digest\nphases:\n  - {id: a, agent: echo, task: 'ok'}\n");
  v1::SaveFlowResponse saved;
  ASSERT_TRUE(As(kTenantA)->SaveFlow(Context().get(), save, &saved).ok());

  v1::GetFlowRequest get;
  get.set_name("digest");
  v1::GetFlowResponse flow;
  EXPECT_TRUE(As(kTenantA)->GetFlow(Context().get(), get, &flow).ok());
  EXPECT_EQ(As(kTenantB)->GetFlow(Context().get(), get, &flow).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::ListFlowsResponse listed;
  ASSERT_TRUE(As(kTenantB)->ListFlows(Context().get(), {}, &listed).ok());
  EXPECT_EQ(listed.flows_size(), 0);
  // Submitting by name looks among the caller's own flows.
  v1::SubmitRunRequest submit;
  submit.mutable_saved()->set_name("digest");
  v1::SubmitRunResponse submitted;
  EXPECT_EQ(As(kTenantB)->SubmitRun(Context().get(), submit, &submitted).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::DeleteFlowRequest remove;
  remove.set_name("digest");
  v1::DeleteFlowResponse removed;
  EXPECT_EQ(As(kTenantB)->DeleteFlow(Context().get(), remove, &removed).error_code(),
            grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(As(kTenantA)->SubmitRun(Context().get(), submit, &submitted).ok());
}

// The tool cache is keyed by tenant first (docs/semantics.md#tenants: tenants never
// share entries): the same session id in another tenant is another session.
TEST_F(AuthTest, ToolCache_OtherTenantsIdenticalCallMisses) {
  std::ofstream(cluster_.dir() / "shared.md") << "# conventions\n";
  constexpr char kRead[] = R"(
name: read
toolCache:
  tools:
    read_file: {scope: session}
phases:
  - id: read
    agent: echo
    task: 'tool read_file {"path": "shared.md"}'
)";
  auto run_as = [&](const std::string& token) -> v1::Observation {
    v1::SubmitRunRequest request;
    request.mutable_source()->set_text(kRead);
    request.set_session_id("shared-session");
    v1::SubmitRunResponse response;
    grpc::Status status = As(token)->SubmitRun(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    // WaitForRun and ToolCalls go through the cluster's stub: tenant A's
    // token, so tenant B's run is read with the admin's.
    auto reader = v1::Scheduler::NewStub(TestChannel(cluster_.address(), kAdmin));
    for (int i = 0; i < 600; ++i) {
      v1::GetRunRequest get;
      get.set_run_id(response.run_id());
      v1::GetRunResponse run;
      if (reader->GetRun(Context().get(), get, &run).ok() &&
          run.run().status() == v1::RUN_STATUS_COMPLETED) {
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    v1::GetTaskRequest task;
    task.set_run_id(response.run_id());
    task.set_task_id("read");
    v1::GetTaskResponse calls;
    EXPECT_TRUE(reader->GetTask(Context().get(), task, &calls).ok());
    EXPECT_EQ(calls.tool_calls_size(), 1) << cluster_.Logs();
    return calls.tool_calls_size() == 1 ? calls.tool_calls(0) : v1::Observation();
  };
  const v1::Observation first = run_as(kTenantA);
  EXPECT_FALSE(first.cached());
  const v1::Observation second = run_as(kTenantA);
  EXPECT_TRUE(second.cached()) << "tenant A's second call should hit its own entry";
  const v1::Observation other = run_as(kTenantB);
  EXPECT_EQ(other.tool_name(), "read_file");
  EXPECT_FALSE(other.cached()) << "tenant B must not be served tenant A's entry";

  // GetCacheStats: a client token sees its own tenant's rows only.
  auto stats_as = [&](const std::string& token, const std::string& tenant,
                      v1::GetCacheStatsResponse* stats) {
    v1::GetCacheStatsRequest request;
    request.set_tenant(tenant);
    return As(token)->GetCacheStats(Context().get(), request, stats);
  };
  v1::GetCacheStatsResponse own;
  ASSERT_TRUE(stats_as(kTenantA, "", &own).ok());
  ASSERT_EQ(own.rows_size(), 1) << own.DebugString();
  EXPECT_EQ(own.rows(0).tenant(), "acme");
  EXPECT_EQ(own.rows(0).scope(), v1::CACHE_SCOPE_SESSION);
  EXPECT_EQ(own.rows(0).tool(), "read_file");
  EXPECT_EQ(own.rows(0).entries(), 1);
  EXPECT_EQ(own.rows(0).hits(), 1);
  EXPECT_EQ(own.rows(0).misses(), 1);
  EXPECT_EQ(own.entries(), 1);
  v1::GetCacheStatsResponse named_own;
  ASSERT_TRUE(stats_as(kTenantA, "acme", &named_own).ok());
  EXPECT_EQ(named_own.rows_size(), 1);
  // Naming another tenant is refused, saying who may.
  v1::GetCacheStatsResponse refused_stats;
  grpc::Status refused = stats_as(kTenantA, "globex", &refused_stats);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("reads tenant 'acme' only"));
  // An admin sees every tenant, or the one it names.
  v1::GetCacheStatsResponse all;
  ASSERT_TRUE(stats_as(kAdmin, "", &all).ok());
  ASSERT_EQ(all.rows_size(), 2) << all.DebugString();
  EXPECT_EQ(all.rows(0).tenant(), "acme");
  EXPECT_EQ(all.rows(1).tenant(), "globex");
  EXPECT_EQ(all.rows(1).misses(), 1);
  EXPECT_EQ(all.entries(), 2);
  v1::GetCacheStatsResponse globex;
  ASSERT_TRUE(stats_as(kAdmin, "globex", &globex).ok());
  ASSERT_EQ(globex.rows_size(), 1);
  EXPECT_EQ(globex.rows(0).tenant(), "globex");
  // A worker token is not a client.
  v1::GetCacheStatsResponse worker_stats;
  EXPECT_EQ(stats_as(kWorker, "", &worker_stats).error_code(), grpc::StatusCode::PERMISSION_DENIED);
}

TEST(AuthReloadTest, Sighup_ReloadsTheTokensFile) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "tokens.yaml").string();
  std::ofstream(path) << kTokens;
  ClusterOptions options = Authenticated();
  options.workers = 0;
  options.scheduler_flags = {"--auth-tokens", path};
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.StartScheduler(), IsOk());
  auto stub = v1::Scheduler::NewStub(TestChannel(cluster.address(), "fresh-token-0123456789"));
  v1::ListRunsResponse listed;
  ASSERT_EQ(stub->ListRuns(Context().get(), {}, &listed).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);

  ASSERT_TRUE(WriteFileAtomically(
      path, absl::StrCat(kTokens,
                         "  - {token: fresh-token-0123456789, name: new, role: client, "
                         "tenant: acme}\n")));
  cluster.scheduler()->Signal(SIGHUP);
  grpc::Status status;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       std::chrono::steady_clock::now() < deadline;) {
    status = stub->ListRuns(Context().get(), {}, &listed);
    if (status.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(status.ok()) << status.error_message() << cluster.Logs();
}

// Taking tokens out of the file ends the streams they opened: the worker's
// stream (it reconnects and is refused, so no task reaches it) and a client's
// watch; a stream whose token stays is untouched.
TEST(AuthReloadTest, Sighup_RevokedTokensLoseTheirOpenStreams) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "tokens.yaml").string();
  std::ofstream(path) << kTokens;
  ClusterOptions options = Authenticated();
  options.workers = 1;
  options.scheduler_flags = {"--auth-tokens", path};
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  auto admin = v1::Scheduler::NewStub(TestChannel(cluster.address(), kAdmin));
  // Connected workers as the admin sees them (clients may not list them),
  // once there are `count` or 10 s have passed.
  const auto workers = [&](int count) {
    v1::ListWorkersResponse listed;
    for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);;) {
      listed.Clear();
      EXPECT_TRUE(admin->ListWorkers(Context().get(), {}, &listed).ok());
      if (listed.workers_size() == count || std::chrono::steady_clock::now() >= deadline) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return listed.workers_size();
  };
  ASSERT_EQ(workers(1), 1) << cluster.Logs();
  // Alice watches a run that waits for an agent nobody offers.
  absl::StatusOr<std::string> run_id = cluster.Submit(R"({"name": "waits", "phases": [
      {"id": "a", "agent": "nobody", "task": "x"}]})");
  ASSERT_THAT(run_id.status(), IsOk());
  auto alice = v1::Scheduler::NewStub(TestChannel(cluster.address(), kTenantA));
  auto bob = v1::Scheduler::NewStub(TestChannel(cluster.address(), kTenantB));
  v1::WatchRunRequest watch;
  watch.set_run_id(*run_id);
  grpc::ClientContext alice_context;
  auto alice_watch = alice->WatchRun(&alice_context, watch);
  v1::WatchRunResponse event;
  ASSERT_TRUE(alice_watch->Read(&event));  // the stream is open

  // Alice and the worker pool lose their tokens; bob and ops keep theirs.
  ASSERT_TRUE(WriteFileAtomically(
      path,
      "tokens:\n"
      "  - {token: tenant-b-token-0123456789, name: bob, role: client, tenant: globex}\n"
      "  - {token: admin-token-0123456789, name: ops, role: admin}\n"));
  cluster.scheduler()->Signal(SIGHUP);

  while (alice_watch->Read(&event)) {
  }
  const grpc::Status ended = alice_watch->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(ended.error_message(), HasSubstr("token of this stream was revoked"));
  EXPECT_EQ(workers(0), 0) << cluster.Logs();
  // Still out: the worker's reconnects are refused.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  v1::ListWorkersResponse after;
  ASSERT_TRUE(admin->ListWorkers(Context().get(), {}, &after).ok());
  EXPECT_EQ(after.workers_size(), 0) << cluster.Logs();
  v1::ListRunsResponse listed;
  EXPECT_EQ(alice->ListRuns(Context().get(), {}, &listed).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(bob->ListRuns(Context().get(), {}, &listed).ok());
}

TEST(AuthStartupTest, MalformedTokensFile_SchedulerExitsNamingTheEntry) {
  testing::TempDir dir;
  const std::string tokens = (dir.path() / "tokens.yaml").string();
  std::ofstream(tokens) << "tokens:\n  - {token: short, name: ci, role: client, tenant: acme}\n";
  const std::string log = (dir.path() / "scheduler.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> scheduler =
      ChildProcess::Spawn({testing::BinaryPath("taskboard-scheduler"), "--memory", "--listen",
                           "127.0.0.1:0", "--auth-tokens", tokens},
                          log);
  ASSERT_THAT(scheduler.status(), IsOk());
  EXPECT_EQ((*scheduler)->WaitFor(30'000), 2);
  const std::string output = ReadFileOrEmpty(log);
  EXPECT_THAT(output, HasSubstr(tokens));
  EXPECT_THAT(output, HasSubstr("tokens entry 1 ('ci')"));
  EXPECT_THAT(output, HasSubstr("openssl rand -hex 32"));
}

ClusterOptions SmallRequests() {
  ClusterOptions options;
  options.workers = 0;
  options.scheduler_flags = {"--max-request-bytes", "4096"};
  return options;
}

class RequestSizeTest : public testing::ClusterTest {
 protected:
  RequestSizeTest() : ClusterTest(SmallRequests()) {}
};

TEST_F(RequestSizeTest, RequestOverTheLimit_ResourceExhaustedNamingTheFlag) {
  Json args = Json::object();
  args["notes"] = std::string(10'000, 'x');
  absl::StatusOr<std::string> run_id =
      cluster_.Submit("name: big\nphases:\n  - id: a\n    agent: echo\n    task: echo hi\n", args);
  EXPECT_EQ(run_id.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(run_id.status().message(), HasSubstr("--max-request-bytes"));
  EXPECT_THAT(run_id.status().message(), HasSubstr("4096"));

  // A request under the limit is served.
  absl::StatusOr<std::string> small =
      cluster_.Submit("name: small\nphases:\n  - id: a\n    agent: echo\n    task: echo hi\n");
  EXPECT_THAT(small.status(), IsOk());
}

}  // namespace
}  // namespace taskboard
