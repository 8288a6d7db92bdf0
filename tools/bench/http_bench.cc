// What the HTTP front door (common/http) holds and serves on this machine,
// against the thread-per-connection server it replaced (cpp-httplib with a
// pool of 40 threads, the scheduler's old `--http-max-streams + 8`), for
// decision 134 and docs/performance.md#the-http-front-door:
//
//   BM_IdleConnections/<server>/<n>  n idle connections held open: memory per
//                                     connection, and the time a probe on the
//                                     same port takes while they are held
//   BM_Requests/<server>/<clients>    small kept-alive GETs from `clients`
//                                     threads: requests per second
//   BM_ApiCalls/<clients>             the scheduler's HTTP API (in-process
//                                     scheduler, memory store): ListRuns
//                                     calls per second through the gateway
//   BM_ApiStreams/<n>                 n WatchRun event streams held open on
//                                     waiting runs: memory and threads each,
//                                     and a call's latency while they are held
//
//   build/bin/http_bench --benchmark_min_time=1
//
// The scheduler's probes have a listener of their own (--metrics-listen), so
// their latency under load does not depend on the API port; the probe here
// shares the loaded port on purpose, to show what one port can carry.

#include <benchmark/benchmark.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/http/http_server.h"
#include "nlohmann/json.hpp"
#include "scheduler/server/scheduler_server.h"
#include "scheduler/web/api_server.h"
#include "tests/testing/raw_http.h"

namespace taskboard {
namespace {

using testing::RawConnection;

int64_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "VmRSS:")) continue;
    std::vector<absl::string_view> parts = absl::StrSplit(rest, ' ', absl::SkipWhitespace());
    int64_t kib = 0;
    if (!parts.empty() && absl::SimpleAtoi(parts[0], &kib)) return kib << 10;
  }
  return 0;
}

// One server under test: the front door or cpp-httplib, serving GET /healthz.
class Server {
 public:
  virtual ~Server() = default;
  virtual int port() const = 0;
};

class FrontDoor : public Server {
 public:
  FrontDoor() {
    http::HttpServerOptions options;
    options.limits.max_connections = 20'000;
    options.limits.max_connections_per_address = 20'000;
    options.limits.header_timeout = absl::Minutes(10);
    options.limits.idle_timeout = absl::Minutes(10);
    http::HttpRoute probe;
    probe.method = "GET";
    probe.path = "/healthz";
    probe.handle = [](http::HttpRequest, std::shared_ptr<http::HttpResponder> responder) {
      responder->Respond(http::HttpResponse::Text(200, "ok\n"));
    };
    options.routes = {probe};
    server_ = *http::HttpServer::Start(std::move(options));
  }
  int port() const override { return server_->port(); }

 private:
  std::unique_ptr<http::HttpServer> server_;
};

class ThreadPerConnection : public Server {
 public:
  ThreadPerConnection() {
    http_.new_task_queue = [] { return new httplib::ThreadPool(40); };
    http_.Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
      response.set_content("ok\n", "text/plain");
    });
    port_ = http_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    while (!http_.is_running()) absl::SleepFor(absl::Milliseconds(1));
  }
  ~ThreadPerConnection() override {
    http_.stop();
    thread_.join();
  }
  int port() const override { return port_; }

 private:
  httplib::Server http_;
  std::thread thread_;
  int port_ = 0;
};

std::unique_ptr<Server> MakeServer(int64_t kind) {
  if (kind == 0) return std::make_unique<FrontDoor>();
  return std::make_unique<ThreadPerConnection>();
}

// The time one probe on a fresh connection takes; 10 s when it does not answer.
absl::Duration ProbeTime(int port) {
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(10, 0);
  client.set_read_timeout(10, 0);
  const absl::Time start = absl::Now();
  httplib::Result answer = client.Get("/healthz");
  if (!answer || answer->status != 200) return absl::Seconds(10);
  return absl::Now() - start;
}

void BM_IdleConnections(benchmark::State& state) {
  const int64_t count = state.range(1);
  for (auto _ : state) {
    std::unique_ptr<Server> server = MakeServer(state.range(0));
    const int64_t before = ResidentBytes();
    std::vector<std::unique_ptr<RawConnection>> idle;
    idle.reserve(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
      idle.push_back(std::make_unique<RawConnection>(server->port()));
    }
    absl::SleepFor(absl::Milliseconds(200));  // accepted and registered
    const int64_t held = ResidentBytes() - before;
    const absl::Duration probe = ProbeTime(server->port());
    state.counters["bytes_per_connection"] = static_cast<double>(held) / static_cast<double>(count);
    state.counters["probe_ms"] = absl::ToDoubleMilliseconds(probe);
    idle.clear();
  }
}
BENCHMARK(BM_IdleConnections)
    ->ArgNames({"thread_per_conn", "connections"})
    ->ArgsProduct({{0, 1}, {100, 1'000}})
    ->Args({0, 5'000})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_Requests(benchmark::State& state) {
  std::unique_ptr<Server> server = MakeServer(state.range(0));
  const int clients = static_cast<int>(state.range(1));
  for (auto _ : state) {
    std::atomic<int64_t> done{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < clients; ++i) {
      threads.emplace_back([&] {
        httplib::Client client("127.0.0.1", server->port());
        client.set_keep_alive(true);
        client.set_tcp_nodelay(true);
        while (!stop.load()) {
          if (client.Get("/healthz")) done.fetch_add(1);
        }
      });
    }
    const absl::Duration window = absl::Seconds(2);
    absl::SleepFor(window);
    stop.store(true);
    for (std::thread& thread : threads) thread.join();
    state.counters["requests_per_s"] =
        static_cast<double>(done.load()) / absl::ToDoubleSeconds(window);
  }
}
BENCHMARK(BM_Requests)
    ->ArgNames({"thread_per_conn", "clients"})
    ->ArgsProduct({{0, 1}, {1, 8}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

int Threads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    absl::string_view rest = line;
    int threads = 0;
    if (absl::ConsumePrefix(&rest, "Threads:") &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(rest), &threads)) {
      return threads;
    }
  }
  return 0;
}

// An in-process scheduler (memory store) with its HTTP API on port 0.
struct ApiUnderTest {
  ApiUnderTest(int max_streams) {
    server::SchedulerServerOptions options;
    options.listen_address = "127.0.0.1:0";
    scheduler = *server::SchedulerServer::Create(options);
    web::ApiServerOptions api;
    api.limits.max_connections = 20'000;
    api.limits.max_connections_per_address = 20'000;
    api.api.max_streams = max_streams;
    api.api.max_streams_per_tenant = max_streams;
    http = *web::ApiServer::Start(std::move(api), scheduler->InProcessChannel());
  }
  ~ApiUnderTest() {
    http->Shutdown();
    scheduler->Shutdown();
  }
  std::string Post(httplib::Client& client, const std::string& method, const std::string& body) {
    httplib::Result result =
        client.Post(absl::StrCat("/api/v1/", method), body, "application/json");
    return result && result->status == 200 ? result->body : "";
  }
  std::unique_ptr<server::SchedulerServer> scheduler;
  std::unique_ptr<web::ApiServer> http;
};

void BM_ApiCalls(benchmark::State& state) {
  ApiUnderTest api(/*max_streams=*/16);
  const int clients = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::atomic<int64_t> done{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < clients; ++i) {
      threads.emplace_back([&] {
        httplib::Client client("127.0.0.1", api.http->port());
        client.set_keep_alive(true);
        client.set_tcp_nodelay(true);
        while (!stop.load()) {
          if (!api.Post(client, "ListRuns", "{}").empty()) done.fetch_add(1);
        }
      });
    }
    const absl::Duration window = absl::Seconds(2);
    absl::SleepFor(window);
    stop.store(true);
    for (std::thread& thread : threads) thread.join();
    state.counters["calls_per_s"] =
        static_cast<double>(done.load()) / absl::ToDoubleSeconds(window);
  }
}
BENCHMARK(BM_ApiCalls)
    ->ArgName("clients")
    ->Arg(1)
    ->Arg(8)
    ->Arg(64)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_ApiStreams(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  ApiUnderTest api(count);
  httplib::Client client("127.0.0.1", api.http->port());
  const std::string submitted =
      api.Post(client, "SubmitRun",
               nlohmann::json{{"source",
                               {{"text",
                                 "name: waits\nphases:\n  - id: ask\n    type: "
                                 "approval\n    prompt: Go?\n"}}}}
                   .dump());
  const std::string run_id = nlohmann::json::parse(submitted).value("runId", "");
  const std::string body = nlohmann::json{{"runId", run_id}}.dump();
  for (auto _ : state) {
    const int64_t memory_before = ResidentBytes();
    const int threads_before = Threads();
    std::vector<std::unique_ptr<RawConnection>> streams;
    for (int i = 0; i < count; ++i) {
      auto stream = std::make_unique<RawConnection>(api.http->port());
      stream->Send(
          absl::StrCat("POST /api/v1/WatchRun HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Content-Type: application/json\r\nContent-Length: ",
                       body.size(), "\r\n\r\n", body));
      streams.push_back(std::move(stream));
    }
    int open = 0;
    for (auto& stream : streams) {
      if (stream->ReadUntil("event: message", absl::Seconds(10)).find("event: message") !=
          std::string::npos) {
        ++open;
      }
    }
    const int64_t held = ResidentBytes() - memory_before;
    const int threads = Threads() - threads_before;
    const absl::Time start = absl::Now();
    api.Post(client, "ListRuns", "{}");
    const absl::Duration call = absl::Now() - start;
    state.counters["streams_open"] = open;
    state.counters["bytes_per_stream"] = static_cast<double>(held) / std::max(1, open);
    state.counters["threads_added"] = threads;
    state.counters["call_ms_while_held"] = absl::ToDoubleMilliseconds(call);
    streams.clear();
  }
}
BENCHMARK(BM_ApiStreams)
    ->ArgName("streams")
    ->Arg(100)
    ->Arg(1'000)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace taskboard

BENCHMARK_MAIN();
