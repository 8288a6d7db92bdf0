// The scheduler's HTTP API across real processes (docs/http-api.md): JSON
// calls and server-sent events on the --http-listen port, with the same
// tokens, roles, tenant isolation and limits as the gRPC API, and clear JSON
// errors for what a client can get wrong.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;

constexpr char kAcme[] = "http-acme-token-0123456789";
constexpr char kGlobex[] = "http-globex-token-0123456789";
constexpr char kWorker[] = "http-worker-token-0123456789";

constexpr char kTokens[] = R"(tokens:
  - {token: http-acme-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: http-globex-token-0123456789, name: bob, role: client, tenant: globex}
  - {token: http-worker-token-0123456789, name: pool, role: worker}
)";

constexpr char kEchoFlow[] = R"(
name: hello-http
phases:
  - id: a
    agent: echo
    task: echo one
  - id: b
    agent: echo
    task: echo two {steps.a.output}
    dependsOn: [a]
)";

constexpr char kApprovalFlow[] = R"(
name: wait-for-a-person
phases:
  - id: ask
    type: approval
    prompt: Go ahead?
  - id: after
    agent: echo
    task: echo approved
    dependsOn: [ask]
)";

struct Reply {
  int status = 0;
  nlohmann::json body;
  std::string text;
};

// The server-sent events of one stream: (event, id, data) per frame.
struct Frame {
  std::string event;
  std::string id;
  std::string data;
};

std::vector<Frame> ParseFrames(const std::string& text) {
  std::vector<Frame> frames;
  for (absl::string_view block : absl::StrSplit(text, "\n\n", absl::SkipEmpty())) {
    if (absl::StartsWith(block, ":")) continue;  // a heartbeat comment
    Frame frame;
    for (absl::string_view line : absl::StrSplit(block, '\n')) {
      if (absl::ConsumePrefix(&line, "event: ")) frame.event = std::string(line);
      if (absl::ConsumePrefix(&line, "id: ")) frame.id = std::string(line);
      if (absl::ConsumePrefix(&line, "data: ")) frame.data += std::string(line);
    }
    frames.push_back(frame);
  }
  return frames;
}

class HttpApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(files_.path() / "tokens.yaml") << kTokens;
    ASSERT_THAT(cluster_.Start(), IsOk());
    int port = 0;
    std::ifstream(PortFile()) >> port;
    ASSERT_GT(port, 0) << "the scheduler wrote no HTTP port\n" << cluster_.Logs();
    port_ = port;
  }

  std::filesystem::path PortFile() const { return files_.path() / "http.port"; }

  testing::ClusterOptions Options() const {
    testing::ClusterOptions options;
    options.workers = 1;
    options.scheduler_flags = {"--auth-tokens",         (files_.path() / "tokens.yaml").string(),
                               "--http-listen",         "127.0.0.1:0",
                               "--http-port-file",      PortFile().string(),
                               "--http-max-streams",    "2",
                               "--http-max-body-bytes", "65536"};
    options.worker_flags = {"--token", kWorker};
    options.client_token = kAcme;
    return options;
  }

  std::unique_ptr<httplib::Client> Client() const {
    auto client = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client->set_read_timeout(30, 0);
    return client;
  }

  Reply Post(const std::string& method, const std::string& body, const std::string& token) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", absl::StrCat("Bearer ", token));
    httplib::Result result =
        Client()->Post(absl::StrCat("/api/v1/", method), headers, body, "application/json");
    Reply reply;
    if (!result) {
      ADD_FAILURE() << method << ": " << httplib::to_string(result.error());
      return reply;
    }
    reply.status = result->status;
    reply.text = result->body;
    reply.body = nlohmann::json::parse(result->body, nullptr, false);
    return reply;
  }

  // Submits DSL text as acme over HTTP; the run id.
  std::string Submit(const std::string& flow) {
    Reply reply = Post("SubmitRun", nlohmann::json{{"source", {{"text", flow}}}}.dump(), kAcme);
    EXPECT_EQ(reply.status, 200) << reply.text;
    return reply.body.value("runId", "");
  }

  // Follows a run's events until its stream ends.
  std::vector<Frame> Watch(const std::string& run_id, const std::string& last_event_id = "") {
    httplib::Headers headers = {{"Authorization", absl::StrCat("Bearer ", kAcme)}};
    if (!last_event_id.empty()) headers.emplace("Last-Event-ID", last_event_id);
    httplib::Result result = Client()->Post(
        "/api/v1/WatchRun", headers, nlohmann::json{{"runId", run_id}}.dump(), "application/json");
    if (!result) {
      ADD_FAILURE() << "WatchRun: " << httplib::to_string(result.error());
      return {};
    }
    EXPECT_EQ(result->status, 200) << result->body;
    EXPECT_EQ(result->get_header_value("Content-Type"), "text/event-stream");
    return ParseFrames(result->body);
  }

  testing::TempDir files_;
  testing::Cluster cluster_{Options()};
  int port_ = 0;
};

TEST_F(HttpApiTest, SubmitWatchAndGet_OverJsonAndServerSentEvents) {
  const std::string run_id = Submit(kEchoFlow);
  ASSERT_FALSE(run_id.empty());

  std::vector<Frame> frames = Watch(run_id);
  ASSERT_GE(frames.size(), 2u);
  // Every event frame carries its seq as id, the stream ends with `end: ok`.
  int64_t last_seq = 0;
  for (size_t i = 0; i + 1 < frames.size(); ++i) {
    EXPECT_EQ(frames[i].event, "message");
    nlohmann::json message = nlohmann::json::parse(frames[i].data);
    ASSERT_TRUE(message.contains("event")) << frames[i].data;
    const int64_t seq = std::stoll(message["event"].value("seq", "0"));
    EXPECT_EQ(frames[i].id, std::to_string(seq));
    EXPECT_GT(seq, last_seq);
    last_seq = seq;
  }
  EXPECT_EQ(frames.back().event, "end");
  EXPECT_EQ(nlohmann::json::parse(frames.back().data).value("code", ""), "ok");

  Reply run = Post("GetRun", nlohmann::json{{"runId", run_id}}.dump(), kAcme);
  ASSERT_EQ(run.status, 200) << run.text;
  EXPECT_EQ(run.body["run"].value("status", ""), "RUN_STATUS_COMPLETED") << run.text;

  // A reader that reconnects with Last-Event-ID gets only what came after.
  std::vector<Frame> resumed = Watch(run_id, std::to_string(last_seq - 1));
  ASSERT_EQ(resumed.size(), 2u);
  EXPECT_EQ(resumed[0].id, std::to_string(last_seq));
}

TEST_F(HttpApiTest, Tokens_SameChecksAsGrpc) {
  const std::string run_id = Submit(kEchoFlow);
  ASSERT_FALSE(run_id.empty());
  const std::string get = nlohmann::json{{"runId", run_id}}.dump();

  Reply none = Post("GetRun", get, "");
  EXPECT_EQ(none.status, 401) << none.text;
  EXPECT_EQ(none.body.value("code", ""), "unauthenticated");
  EXPECT_THAT(none.body.value("message", ""), HasSubstr("Bearer"));

  EXPECT_EQ(Post("GetRun", get, "not-a-token-0123456789").status, 401);
  // Another tenant's run does not exist for bob, as over gRPC.
  Reply other = Post("GetRun", get, kGlobex);
  EXPECT_EQ(other.status, 404) << other.text;
  EXPECT_EQ(other.body.value("code", ""), "not_found");
  // A worker token may not call the client API.
  Reply worker = Post("ListRuns", "{}", kWorker);
  EXPECT_EQ(worker.status, 403) << worker.text;
  EXPECT_EQ(worker.body.value("code", ""), "permission_denied");
  // GetCacheStats: another tenant's figures are refused as over gRPC.
  Reply own_cache = Post("GetCacheStats", "{}", kAcme);
  EXPECT_EQ(own_cache.status, 200) << own_cache.text;
  EXPECT_EQ(own_cache.body.value("maxEntriesPerTenant", ""), "100000") << own_cache.text;
  Reply other_cache = Post("GetCacheStats", R"({"tenant": "acme"})", kGlobex);
  EXPECT_EQ(other_cache.status, 403) << other_cache.text;
  EXPECT_EQ(other_cache.body.value("code", ""), "permission_denied");
}

TEST_F(HttpApiTest, BadRequests_ClearJsonErrorsAndTheSchedulerKeepsServing) {
  Reply unknown_field = Post("GetRun", R"({"runId": "r", "bogus": 1})", kAcme);
  EXPECT_EQ(unknown_field.status, 400) << unknown_field.text;
  EXPECT_EQ(unknown_field.body.value("code", ""), "invalid_argument");
  EXPECT_THAT(unknown_field.body.value("message", ""), HasSubstr("bogus"));
  EXPECT_THAT(unknown_field.body.value("message", ""), HasSubstr("taskboard.v1.GetRunRequest"));

  Reply not_json = Post("ListRuns", "{", kAcme);
  EXPECT_EQ(not_json.status, 400) << not_json.text;

  // Nested deeper than any parser should follow: refused, not a crash.
  const std::string deep = absl::StrCat(R"({"source": {"text": "x"}, "args": {"a": )",
                                        std::string(20'000, '['), std::string(20'000, ']'), "}}");
  Reply too_deep = Post("SubmitRun", deep, kAcme);
  EXPECT_EQ(too_deep.status, 400) << too_deep.text.substr(0, 300);
  EXPECT_THAT(too_deep.body.value("message", ""), HasSubstr("--max-json-depth"));

  Reply too_big = Post("SubmitRun", std::string(70'000, ' '), kAcme);
  EXPECT_EQ(too_big.status, 413) << too_big.text;
  EXPECT_THAT(too_big.text, HasSubstr("--http-max-body-bytes"));

  Reply no_method = Post("LaunchRockets", "{}", kAcme);
  EXPECT_EQ(no_method.status, 404) << no_method.text;
  EXPECT_THAT(no_method.body.value("message", ""), HasSubstr("SubmitRun"));
  // curl's -d sends a form: refused unread (415), saying what to send.
  httplib::Result form =
      Client()->Post("/api/v1/SubmitRun", {{"Authorization", "Bearer x"}}, std::string(9'000, 'a'),
                     "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 415);
  EXPECT_THAT(form->body, HasSubstr("Content-Type: application/json"));

  httplib::Result get = Client()->Get("/api/v1/ListRuns");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");

  httplib::Result elsewhere = Client()->Post("/api/v2/ListRuns", "{}", "application/json");
  ASSERT_TRUE(elsewhere);
  EXPECT_EQ(elsewhere->status, 404);
  EXPECT_THAT(elsewhere->body, HasSubstr("is not part of the API: call POST /api/v1/"));

  // A flow that does not validate: every error with its path, as JSON.
  Reply invalid = Post(
      "SubmitRun",
      nlohmann::json{{"source", {{"text", "name: x\nphases:\n  - id: a\n    tsk: oops\n"}}}}.dump(),
      kAcme);
  EXPECT_EQ(invalid.status, 400) << invalid.text;
  ASSERT_TRUE(invalid.body.contains("flowErrors")) << invalid.text;
  EXPECT_FALSE(invalid.body["flowErrors"]["errors"].empty()) << invalid.text;

  const std::string run_id = Submit(kEchoFlow);
  ASSERT_FALSE(run_id.empty());
  EXPECT_EQ(Watch(run_id).back().event, "end");
}

TEST_F(HttpApiTest, Approvals_AnsweredOverHttpWhileStreamsAreBounded) {
  const std::string run_id = Submit(kApprovalFlow);
  ASSERT_FALSE(run_id.empty());
  // Wait for the approval to be listed.
  nlohmann::json pending;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    Reply list = Post("ListApprovals", "{}", kAcme);
    ASSERT_EQ(list.status, 200) << list.text;
    if (list.body.contains("approvals")) {
      pending = list.body["approvals"];
      break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  ASSERT_EQ(pending.size(), 1u) << cluster_.Logs();
  EXPECT_EQ(pending[0].value("stepId", ""), "ask");

  // Two readers follow the waiting run (the most --http-max-streams allows).
  std::vector<std::thread> readers;
  std::atomic<int> open{0};
  std::vector<std::string> bodies(2);
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&, i] {
      auto client = Client();
      httplib::Request request;
      request.method = "POST";
      request.path = "/api/v1/WatchRun";
      request.headers = {{"Authorization", absl::StrCat("Bearer ", kAcme)},
                         {"Content-Type", "application/json"}};
      request.body = nlohmann::json{{"runId", run_id}}.dump();
      bool counted = false;
      request.content_receiver = [&, i](const char* data, size_t length, uint64_t, uint64_t) {
        bodies[i].append(data, length);
        if (!counted) {
          counted = true;
          ++open;
        }
        return true;
      };
      client->send(request);
    });
  }
  const absl::Time streams_deadline = absl::Now() + absl::Seconds(30);
  while (open.load() < 2 && absl::Now() < streams_deadline) absl::SleepFor(absl::Milliseconds(20));
  ASSERT_EQ(open.load(), 2);
  Reply third = Post("WatchRun", nlohmann::json{{"runId", run_id}}.dump(), kAcme);
  EXPECT_EQ(third.status, 429) << third.text;
  EXPECT_THAT(third.body.value("message", ""), HasSubstr("--http-max-streams"));

  // bob may not see acme's approval; alice approves it over HTTP.
  Reply foreign =
      Post("DecideApproval",
           nlohmann::json{{"runId", run_id}, {"stepId", "ask"}, {"decision", "approve"}}.dump(),
           kGlobex);
  EXPECT_EQ(foreign.status, 404) << foreign.text;
  Reply decided = Post("DecideApproval",
                       nlohmann::json{{"runId", run_id},
                                      {"stepId", "ask"},
                                      {"decision", "approve"},
                                      {"comment", "from the browser"}}
                           .dump(),
                       kAcme);
  ASSERT_EQ(decided.status, 200) << decided.text;
  EXPECT_EQ(decided.body["task"]["approval"]["decision"].value("decidedBy", ""), "alice");
  Reply twice = Post(
      "DecideApproval",
      nlohmann::json{{"runId", run_id}, {"stepId", "ask"}, {"decision", "reject"}}.dump(), kAcme);
  EXPECT_EQ(twice.status, 400) << twice.text;
  EXPECT_EQ(twice.body.value("code", ""), "failed_precondition");

  // The run completes, so both streams end with `end: ok`.
  for (std::thread& reader : readers) reader.join();
  for (const std::string& body : bodies) {
    std::vector<Frame> frames = ParseFrames(body);
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back().event, "end") << body;
  }
  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id);
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED);
}

// A scheduler whose HTTP port other machines can reach, without tokens:
// the probes stay, the API refuses and says which flag to pass.
TEST(HttpApiExposureTest, ReachablePortWithoutTokens_ApiRefusedProbesServed) {
  testing::TempDir files;
  const std::string port_file = (files.path() / "http.port").string();
  testing::ClusterOptions options;
  options.workers = 0;
  options.scheduler_flags = {"--http-listen", "0.0.0.0:0", "--http-port-file", port_file};
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  int port = 0;
  std::ifstream(port_file) >> port;
  ASSERT_GT(port, 0) << cluster.Logs();
  httplib::Client client("127.0.0.1", port);
  httplib::Result refused = client.Post("/api/v1/ListRuns", "{}", "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403) << refused->body;
  EXPECT_THAT(refused->body, HasSubstr("--auth-tokens"));
  httplib::Result health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

}  // namespace
}  // namespace taskboard
