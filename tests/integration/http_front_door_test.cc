// The scheduler's HTTP port played by a hostile client, a careless tenant and
// a web page on another site (docs/security.md#the-http-port): every body,
// head, connection and stream is bounded, refusals are clear, and after each
// attack the same scheduler process completes a normal run.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "nlohmann/json.hpp"
#include "tests/testing/cluster.h"
#include "tests/testing/raw_http.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

using ::testing::HasSubstr;
using testing::IsOk;
using ::testing::Not;
using testing::RawConnection;

constexpr char kAcme[] = "door-acme-token-0123456789";
constexpr char kGlobex[] = "door-globex-token-0123456789";
constexpr char kWorker[] = "door-worker-token-0123456789";

constexpr char kTokens[] = R"(tokens:
  - {token: door-acme-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: door-globex-token-0123456789, name: bob, role: client, tenant: globex}
  - {token: door-worker-token-0123456789, name: pool, role: worker}
)";

constexpr char kEchoFlow[] = R"(
name: after-the-attack
phases:
  - id: a
    agent: echo
    task: echo still serving
)";

// A run that waits for a person: its stream stays open as long as a test
// needs it to.
constexpr char kWaitingFlow[] = R"(
name: waits
phases:
  - id: ask
    type: approval
    prompt: Go ahead?
)";

constexpr int64_t kMaxBody = 65536;
constexpr int kPerAddress = 16;

// The scheduler's resident memory in bytes (VmRSS).
int64_t ResidentBytes(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "VmRSS:")) continue;
    int64_t kib = 0;
    std::vector<absl::string_view> parts = absl::StrSplit(rest, ' ', absl::SkipWhitespace());
    if (!parts.empty() && absl::SimpleAtoi(parts[0], &kib)) return kib << 10;
  }
  return 0;
}

class HttpFrontDoorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(files_.path() / "tokens.yaml") << kTokens;
    ASSERT_THAT(cluster_.Start(), IsOk());
    std::ifstream(files_.path() / "http.port") >> port_;
    std::ifstream(files_.path() / "metrics.port") >> metrics_port_;
    ASSERT_GT(port_, 0) << cluster_.Logs();
    ASSERT_GT(metrics_port_, 0) << cluster_.Logs();
  }

  testing::ClusterOptions Options() const {
    testing::ClusterOptions options;
    options.workers = 1;
    options.scheduler_flags = {"--auth-tokens",
                               (files_.path() / "tokens.yaml").string(),
                               "--http-listen",
                               "127.0.0.1:0",
                               "--http-port-file",
                               (files_.path() / "http.port").string(),
                               "--metrics-listen",
                               "127.0.0.1:0",
                               "--metrics-port-file",
                               (files_.path() / "metrics.port").string(),
                               "--http-max-body-bytes",
                               absl::StrCat(kMaxBody),
                               "--http-max-connections-per-address",
                               absl::StrCat(kPerAddress),
                               "--http-header-timeout-seconds",
                               "1",
                               "--http-body-timeout-seconds",
                               "2",
                               "--http-max-streams",
                               "8",
                               "--http-max-streams-per-tenant",
                               "2",
                               "--http-heartbeat-seconds",
                               "1"};
    options.worker_flags = {"--token", kWorker};
    options.client_token = kAcme;
    return options;
  }

  std::unique_ptr<httplib::Client> Client(int port = 0) const {
    auto client = std::make_unique<httplib::Client>("127.0.0.1", port == 0 ? port_ : port);
    client->set_read_timeout(30, 0);
    return client;
  }

  httplib::Result Post(const std::string& method, const std::string& body, const std::string& token,
                       httplib::Headers headers = {},
                       const std::string& content_type = "application/json") {
    if (!token.empty()) headers.emplace("Authorization", absl::StrCat("Bearer ", token));
    return Client()->Post(absl::StrCat("/api/v1/", method), headers, body, content_type.c_str());
  }

  std::string SubmitOverHttp(const std::string& flow, const std::string& token) {
    httplib::Result reply =
        Post("SubmitRun", nlohmann::json{{"source", {{"text", flow}}}}.dump(), token);
    if (!reply || reply->status != 200) {
      ADD_FAILURE() << "SubmitRun over HTTP: "
                    << (reply ? reply->body : httplib::to_string(reply.error()));
      return "";
    }
    return nlohmann::json::parse(reply->body).value("runId", "");
  }

  // What every test ends with: the scheduler that took the attack still
  // completes a normal run submitted over HTTP.
  void ExpectNormalRunCompletes() {
    const std::string run_id = SubmitOverHttp(kEchoFlow, kAcme);
    ASSERT_FALSE(run_id.empty());
    absl::StatusOr<v1::Run> run = cluster_.WaitForRun(run_id);
    ASSERT_THAT(run, IsOk());
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << cluster_.Logs();
  }

  int CountRuns() {
    httplib::Result runs = Post("ListRuns", "{}", kAcme);
    if (!runs || runs->status != 200) return -1;
    return static_cast<int>(
        nlohmann::json::parse(runs->body).value("runs", nlohmann::json::array()).size());
  }

  // Opens a WatchRun stream on a raw connection and reads up to its first
  // event; the connection (check its read() for the answer).
  std::unique_ptr<RawConnection> OpenStream(const std::string& run_id, const std::string& token) {
    auto stream = std::make_unique<RawConnection>(port_);
    const std::string body = nlohmann::json{{"runId", run_id}}.dump();
    stream->Send(absl::StrCat(
        "POST /api/v1/WatchRun HTTP/1.1\r\nHost: 127.0.0.1\r\n", "Authorization: Bearer ", token,
        "\r\nContent-Type: application/json\r\nContent-Length: ", body.size(), "\r\n\r\n", body));
    stream->ReadUntil("\r\n\r\n", absl::Seconds(10));
    if (stream->read().rfind("HTTP/1.1 200", 0) == 0) {
      stream->ReadUntil("event: message", absl::Seconds(10));
    }
    return stream;
  }

  testing::TempDir files_;
  testing::Cluster cluster_{Options()};
  int port_ = 0;
  int metrics_port_ = 0;
};

TEST_F(HttpFrontDoorTest, ChunkedBody_HundredTimesTheLimit_ClosedUnreadWithoutAToken) {
  const int64_t before = ResidentBytes(cluster_.scheduler()->pid());
  RawConnection flood(port_);
  ASSERT_TRUE(flood.connected());
  ASSERT_TRUE(flood.Send(
      "POST /api/v1/SubmitRun HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n"));
  const std::string chunk = absl::StrCat("4000\r\n", std::string(16384, ' '), "\r\n");
  int64_t sent = 0;
  while (sent < 100 * kMaxBody && flood.Send(chunk)) sent += 16384;
  // The server stopped reading and closed well before the whole flood.
  EXPECT_LT(sent, 100 * kMaxBody);
  EXPECT_TRUE(flood.ClosedByServer(absl::Seconds(5)));
  const int64_t after = ResidentBytes(cluster_.scheduler()->pid());
  EXPECT_LT(after - before, 16 << 20) << "the scheduler kept what it was sent";
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, DeclaredBody_OverTheLimit_413BeforeAByteIsRead) {
  RawConnection big(port_);
  ASSERT_TRUE(big.Send(absl::StrCat(
      "POST /api/v1/SubmitRun HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "Content-Length: ",
      100 * kMaxBody, "\r\n\r\n")));
  EXPECT_TRUE(big.ClosedByServer(absl::Seconds(5)));
  EXPECT_THAT(big.read(), HasSubstr("HTTP/1.1 413"));
  EXPECT_THAT(big.read(), HasSubstr(absl::StrCat(kMaxBody, " bytes")));
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, SlowHeads_ClosedAfterTheHeaderTimeout_EvenWhenTrickling) {
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 8; ++i) {
    slow.push_back(std::make_unique<RawConnection>(port_));
    ASSERT_TRUE(slow.back()->Send("POST /api/v1/ListRuns HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
  }
  // One keeps sending a header byte every 200 ms, so it is never idle.
  RawConnection trickle(port_);
  const absl::Time start = absl::Now();
  bool trickle_closed = false;
  for (int i = 0; i < 50 && !trickle_closed; ++i) {
    trickle_closed = !trickle.Send("X") || trickle.ClosedByServer(absl::Milliseconds(200));
  }
  EXPECT_TRUE(trickle_closed);
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
  for (auto& connection : slow) EXPECT_TRUE(connection->ClosedByServer(absl::Seconds(5)));
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, IdleConnectionFlood_BoundedPerAddress_ProbesAnswerWithinASecond) {
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 200; ++i) idle.push_back(std::make_unique<RawConnection>(port_));
  // The server closes what is over the bound; on a loaded machine that can take
  // a while, so count closes until the bound is reached or a deadline passes.
  std::vector<bool> closed(idle.size(), false);
  int refused = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(15);
  while (refused < 200 - kPerAddress && absl::Now() < deadline) {
    for (size_t i = 0; i < idle.size(); ++i) {
      if (!closed[i] && idle[i]->ClosedByServer(absl::Milliseconds(5))) {
        closed[i] = true;
        ++refused;
      }
    }
  }
  EXPECT_GE(refused, 200 - kPerAddress);
  // The probes have a listener and a thread of their own.
  for (const char* probe : {"/healthz", "/readyz"}) {
    const absl::Time start = absl::Now();
    httplib::Result answer = Client(metrics_port_)->Get(probe);
    ASSERT_TRUE(answer) << probe;
    EXPECT_EQ(answer->status, 200) << probe;
    EXPECT_LT(absl::Now() - start, absl::Seconds(1)) << probe;
  }
  idle.clear();
  // The server learns of the closes from its event loop; until it has, this
  // address is still at its bound and a new connection is closed.
  const absl::Time freed_by = absl::Now() + absl::Seconds(15);
  bool healthy = false;
  while (!(healthy = static_cast<bool>(Client()->Get("/healthz"))) && absl::Now() < freed_by) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_TRUE(healthy) << "the API port never took a connection after the flood ended";
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, HugeHead_Refused) {
  RawConnection huge(port_);
  huge.Send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const std::string header = absl::StrCat("X-Pad: ", std::string(4000, 'a'), "\r\n");
  for (int i = 0; i < 800 && huge.Send(header); ++i) {
  }
  EXPECT_TRUE(huge.ClosedByServer(absl::Seconds(5)));
  EXPECT_THAT(huge.read(), Not(HasSubstr("HTTP/1.1 200")));
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, Streams_BoundedPerTenant_OtherTenantsStillServed) {
  const std::string acme_run = SubmitOverHttp(kWaitingFlow, kAcme);
  const std::string globex_run = SubmitOverHttp(kWaitingFlow, kGlobex);
  ASSERT_FALSE(acme_run.empty());
  ASSERT_FALSE(globex_run.empty());
  std::vector<std::unique_ptr<RawConnection>> acme;
  for (int i = 0; i < 2; ++i) {
    acme.push_back(OpenStream(acme_run, kAcme));
    ASSERT_THAT(acme.back()->read(), HasSubstr("event: message"));
  }
  std::unique_ptr<RawConnection> third = OpenStream(acme_run, kAcme);
  EXPECT_THAT(third->read(), HasSubstr("HTTP/1.1 429"));
  EXPECT_THAT(third->read(), HasSubstr("--http-max-streams-per-tenant"));
  std::unique_ptr<RawConnection> other = OpenStream(globex_run, kGlobex);
  EXPECT_THAT(other->read(), HasSubstr("event: message"));
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, ReaderThatLeft_FreesItsStreamWithinSeconds) {
  const std::string run_id = SubmitOverHttp(kWaitingFlow, kAcme);
  ASSERT_FALSE(run_id.empty());
  std::unique_ptr<RawConnection> kept = OpenStream(run_id, kAcme);
  std::unique_ptr<RawConnection> leaving = OpenStream(run_id, kAcme);
  ASSERT_THAT(leaving->read(), HasSubstr("event: message"));
  leaving->Close();
  // The slot comes back without waiting for the run's next event.
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  bool reopened = false;
  while (!reopened && absl::Now() < deadline) {
    std::unique_ptr<RawConnection> again = OpenStream(run_id, kAcme);
    reopened = again->read().find("event: message") != std::string::npos;
  }
  EXPECT_TRUE(reopened) << "a stream whose reader left still holds its slot";
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, QuietStream_GetsHeartbeats) {
  const std::string run_id = SubmitOverHttp(kWaitingFlow, kAcme);
  std::unique_ptr<RawConnection> stream = OpenStream(run_id, kAcme);
  ASSERT_THAT(stream->read(), HasSubstr("event: message"));
  stream->ReadUntil(": keep-alive", absl::Seconds(5));
  EXPECT_THAT(stream->read(), HasSubstr(": keep-alive"));
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, NonJsonContentType_415AndNothingRuns) {
  const int runs = CountRuns();
  const std::string body = nlohmann::json{{"source", {{"text", kEchoFlow}}}}.dump();
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", ""}) {
    httplib::Result reply = Post("SubmitRun", body, kAcme, {}, type);
    ASSERT_TRUE(reply) << type;
    EXPECT_EQ(reply->status, 415) << type;
    EXPECT_THAT(reply->body, HasSubstr("Content-Type: application/json")) << type;
  }
  EXPECT_EQ(CountRuns(), runs);
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, ForeignOrigin_RefusedOwnOriginServed) {
  const int runs = CountRuns();
  const std::string body = nlohmann::json{{"source", {{"text", kEchoFlow}}}}.dump();
  httplib::Result foreign = Post("SubmitRun", body, kAcme, {{"Origin", "https://evil.example"}});
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  EXPECT_THAT(foreign->body, HasSubstr("--http-allowed-origins"));
  httplib::Result null_origin = Post("ListRuns", "{}", kAcme, {{"Origin", "null"}});
  ASSERT_TRUE(null_origin);
  EXPECT_EQ(null_origin->status, 403);
  EXPECT_EQ(CountRuns(), runs);

  httplib::Result own =
      Post("ListRuns", "{}", kAcme, {{"Origin", absl::StrCat("http://127.0.0.1:", port_)}});
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << own->body;
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, ForeignHostOnLoopback_Refused_DnsRebinding) {
  const std::string rebound = absl::StrCat("attacker.example:", port_);
  for (const char* path : {"/api/v1/ListRuns", "/"}) {
    RawConnection page(port_);
    const bool api = std::string(path) != "/";
    page.Send(absl::StrCat(
        api ? "POST " : "GET ", path, " HTTP/1.1\r\nHost: ", rebound, "\r\nAuthorization: Bearer ",
        kAcme,
        api ? "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}" : "\r\n\r\n"));
    page.ReadUntil("\r\n\r\n", absl::Seconds(5));
    EXPECT_THAT(page.read(), HasSubstr("HTTP/1.1 403")) << path;
    page.ReadUntil("--http-allowed-hosts", absl::Seconds(5));
    EXPECT_THAT(page.read(), HasSubstr("--http-allowed-hosts")) << path;
  }
  httplib::Result local =
      Post("ListRuns", "{}", kAcme, {{"Host", absl::StrCat("localhost:", port_)}});
  ASSERT_TRUE(local);
  EXPECT_EQ(local->status, 200) << local->body;
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, ErrorBodies_EscapeWhatTheyEchoAndAreNotSniffed) {
  httplib::Result reply = Post("%3Cscript%3Ealert(1)%3C%2Fscript%3E", "{}", kAcme);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 404);
  EXPECT_THAT(reply->body, Not(HasSubstr("<script>")));
  EXPECT_THAT(reply->body, HasSubstr("\\u003cscript\\u003e"));
  EXPECT_EQ(reply->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(reply->get_header_value("Content-Type"), "application/json");
  ExpectNormalRunCompletes();
}

TEST_F(HttpFrontDoorTest, Metrics_OnlyOnTheMetricsPort) {
  httplib::Result console_port = Client()->Get("/metrics");
  ASSERT_TRUE(console_port);
  EXPECT_EQ(console_port->status, 404);
  EXPECT_THAT(console_port->body, HasSubstr("--metrics-listen"));
  EXPECT_THAT(console_port->body, Not(HasSubstr("tenant")));
  httplib::Result metrics = Client(metrics_port_)->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_THAT(metrics->body, HasSubstr("taskboard_"));
  ExpectNormalRunCompletes();
}

// `taskboard dev`'s scheduler: no tokens file, and a console token that every
// API call must carry.
TEST(HttpConsoleTokenTest, EveryApiCallCarriesTheConsoleToken) {
  testing::TempDir files;
  const std::string token = "console-token-0123456789abcdef";
  std::ofstream(files.path() / "console.token") << token << "\n";
  testing::ClusterOptions options;
  options.workers = 1;
  options.scheduler_flags = {"--http-listen",
                             "127.0.0.1:0",
                             "--http-port-file",
                             (files.path() / "http.port").string(),
                             "--http-console-token-file",
                             (files.path() / "console.token").string()};
  testing::Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  int port = 0;
  std::ifstream(files.path() / "http.port") >> port;
  ASSERT_GT(port, 0) << cluster.Logs();
  httplib::Client client("127.0.0.1", port);

  httplib::Result none = client.Post("/api/v1/ListRuns", "{}", "application/json");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  EXPECT_THAT(none->body, HasSubstr("console token"));
  httplib::Result wrong =
      client.Post("/api/v1/ListRuns", {{"Authorization", "Bearer nope"}}, "{}", "application/json");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);

  const httplib::Headers bearer = {{"Authorization", absl::StrCat("Bearer ", token)}};
  httplib::Result submitted =
      client.Post("/api/v1/SubmitRun", bearer,
                  nlohmann::json{{"source", {{"text", kEchoFlow}}}}.dump(), "application/json");
  ASSERT_TRUE(submitted);
  ASSERT_EQ(submitted->status, 200) << submitted->body;
  absl::StatusOr<v1::Run> run =
      cluster.WaitForRun(nlohmann::json::parse(submitted->body).value("runId", ""));
  ASSERT_THAT(run, IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED);
  // The console's page itself needs no token: it signs in from its link.
  httplib::Result page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
}

}  // namespace
}  // namespace taskboard
