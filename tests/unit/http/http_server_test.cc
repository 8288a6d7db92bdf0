#include "common/http/http_server.h"

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/testing/raw_http.h"

namespace taskboard::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RawConnection;

HttpRoute Echo() {
  HttpRoute route;
  route.method = "POST";
  route.path = "/echo";
  route.max_body_bytes = 1024;
  route.handle = [](HttpRequest request, std::shared_ptr<HttpResponder> responder) {
    responder->Respond(HttpResponse::Text(200, absl::StrCat(request.peer, " ", request.body)));
  };
  return route;
}

std::unique_ptr<HttpServer> StartOrDie(HttpServerOptions options) {
  absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(std::move(options));
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

TEST(HttpServer, Route_AnswersWithTheBodyAndThePeer) {
  HttpServerOptions options;
  options.routes = {Echo()};
  options.headers = {{"X-Content-Type-Options", "nosniff"}};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  ASSERT_NE(server, nullptr);
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result reply = client.Post("/echo", "hello", "text/plain");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->body, "127.0.0.1 hello");
  EXPECT_EQ(reply->get_header_value("X-Content-Type-Options"), "nosniff");
}

TEST(HttpServer, UnknownPath_404_WrongMethod_405WithAllow) {
  HttpServerOptions options;
  options.routes = {Echo()};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result missing = client.Get("/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  httplib::Result wrong = client.Get("/echo");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  EXPECT_EQ(wrong->get_header_value("Allow"), "POST");
}

TEST(HttpServer, Admit_RefusesBeforeTheBodyIsRead) {
  std::atomic<int> handled{0};
  HttpRoute route = Echo();
  route.admit = [](const HttpRequest& head) -> std::optional<HttpResponse> {
    if (head.header("x-allowed") == "yes") return std::nullopt;
    return HttpResponse::Text(403, "no\n");
  };
  route.handle = [&handled](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    ++handled;
    responder->Respond(HttpResponse::Text(200, "ok"));
  };
  HttpServerOptions options;
  options.routes = {route};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result refused = client.Post("/echo", "x", "text/plain");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  httplib::Result allowed = client.Post("/echo", {{"X-Allowed", "yes"}}, "x", "text/plain");
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->status, 200);
  EXPECT_EQ(handled.load(), 1);
}

TEST(HttpServer, AnswerFromAnotherThread_ReachesTheClient) {
  std::vector<std::thread> workers;
  HttpRoute route;
  route.method = "GET";
  route.path = "/later";
  route.handle = [&workers](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    workers.emplace_back([responder] {
      absl::SleepFor(absl::Milliseconds(50));
      responder->Respond(HttpResponse::Text(200, "done later"));
    });
  };
  HttpServerOptions options;
  options.routes = {route};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  httplib::Client client("127.0.0.1", server->port());
  for (int i = 0; i < 3; ++i) {  // the same kept-alive connection each time
    httplib::Result reply = client.Get("/later");
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->body, "done later");
  }
  for (std::thread& worker : workers) worker.join();
}

TEST(HttpServer, Stream_WritesGoOutAsTheyComeThenTheBodyEnds) {
  std::shared_ptr<HttpStream> stream;
  absl::Notification opened;
  HttpRoute route;
  route.method = "GET";
  route.path = "/events";
  route.handle = [&](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    HttpResponse head;
    head.content_type = "text/event-stream";
    stream = responder->Stream(std::move(head));
    opened.Notify();
  };
  HttpServerOptions options;
  options.routes = {route};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  RawConnection reader(server->port());
  reader.Send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(opened.WaitForNotificationWithTimeout(absl::Seconds(5)));
  ASSERT_TRUE(stream->Write("first\n"));
  reader.ReadUntil("first", absl::Seconds(5));
  EXPECT_THAT(reader.read(), HasSubstr("HTTP/1.1 200"));
  EXPECT_THAT(reader.read(), HasSubstr("text/event-stream"));
  ASSERT_TRUE(stream->Write("second\n"));
  reader.ReadUntil("second", absl::Seconds(5));
  EXPECT_THAT(reader.read(), HasSubstr("second"));
  stream->Close();
  reader.ReadUntil("0\r\n\r\n", absl::Seconds(5));  // the chunked body's end
  EXPECT_THAT(reader.read(), HasSubstr("0\r\n\r\n"));
  EXPECT_FALSE(stream->Write("after close"));
}

TEST(HttpServer, Stream_ReaderThatLeft_EndsTheStreamWithinASecond) {
  std::shared_ptr<HttpStream> stream;
  absl::Notification opened;
  absl::Notification done;
  HttpRoute route;
  route.method = "GET";
  route.path = "/events";
  route.handle = [&](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    stream = responder->Stream(HttpResponse());
    stream->SetCallbacks(nullptr, [&done] { done.Notify(); });
    opened.Notify();
  };
  HttpServerOptions options;
  options.routes = {route};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  {
    RawConnection reader(server->port());
    reader.Send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    ASSERT_TRUE(opened.WaitForNotificationWithTimeout(absl::Seconds(5)));
    stream->Write("hello\n");
    reader.ReadUntil("hello", absl::Seconds(5));
  }  // closed: nothing more is written, so only the server's own look finds it
  EXPECT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(2)));
  EXPECT_FALSE(stream->Write("nobody"));
}

TEST(HttpServer, Stream_QuietOne_GetsTheHeartbeat) {
  std::shared_ptr<HttpStream> stream;
  HttpRoute route;
  route.method = "GET";
  route.path = "/events";
  route.handle = [&](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    stream = responder->Stream(HttpResponse());
  };
  HttpServerOptions options;
  options.routes = {route};
  options.limits.stream_heartbeat = absl::Milliseconds(300);
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  RawConnection reader(server->port());
  reader.Send("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  reader.ReadUntil(": keep-alive", absl::Seconds(5));
  EXPECT_THAT(reader.read(), HasSubstr(": keep-alive"));
}

TEST(HttpServer, ChunkedBodyPastTheLimit_ClosesTheConnectionUnread) {
  std::atomic<int> handled{0};
  HttpRoute route = Echo();
  route.handle = [&handled](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    ++handled;
    responder->Respond(HttpResponse::Text(200, "ok"));
  };
  HttpServerOptions options;
  options.routes = {route};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  RawConnection flood(server->port());
  flood.Send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk = absl::StrCat("400\r\n", std::string(1024, 'x'), "\r\n");
  int sent = 0;
  while (sent < 100 && flood.Send(chunk)) ++sent;  // 100 times the limit
  EXPECT_TRUE(flood.ClosedByServer(absl::Seconds(5)));
  EXPECT_EQ(handled.load(), 0);
  // The server goes on serving.
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result reply = client.Post("/echo", "small", "text/plain");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
}

TEST(HttpServer, DeclaredLengthPastTheLimit_413) {
  HttpServerOptions options;
  options.routes = {Echo()};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  httplib::Client client("127.0.0.1", server->port());
  httplib::Result reply = client.Post("/echo", std::string(102'400, 'x'), "text/plain");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 413);
  EXPECT_THAT(reply->body, HasSubstr("1024 bytes"));
}

TEST(HttpServer, PerAddressLimit_ClosesTheExtraConnections) {
  HttpServerOptions options;
  options.routes = {Echo()};
  options.limits.max_connections_per_address = 4;
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  std::vector<std::unique_ptr<RawConnection>> held;
  for (int i = 0; i < 4; ++i) held.push_back(std::make_unique<RawConnection>(server->port()));
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (server->connections() < 4 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(5));
  ASSERT_EQ(server->connections(), 4);
  RawConnection extra(server->port());
  EXPECT_TRUE(extra.ClosedByServer(absl::Seconds(2)));
  held.clear();
  // Once they are gone a new client is served.
  httplib::Client client("127.0.0.1", server->port());
  int status = 0;
  const absl::Time again = absl::Now() + absl::Seconds(5);
  while (status == 0 && absl::Now() < again) {
    if (httplib::Result reply = client.Post("/echo", "x", "text/plain")) status = reply->status;
  }
  EXPECT_EQ(status, 200);
}

TEST(HttpServer, HeadNotDoneInTime_Closed) {
  HttpServerOptions options;
  options.routes = {Echo()};
  options.limits.header_timeout = absl::Milliseconds(500);
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  RawConnection slow(server->port());
  slow.Send("POST /echo HTTP/1.1\r\n");
  const absl::Time start = absl::Now();
  EXPECT_TRUE(slow.ClosedByServer(absl::Seconds(5)));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST(HttpServer, BodyNotDoneInTime_Closed) {
  HttpServerOptions options;
  options.routes = {Echo()};
  options.limits.body_timeout = absl::Milliseconds(500);
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  RawConnection slow(server->port());
  slow.Send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc");
  EXPECT_TRUE(slow.ClosedByServer(absl::Seconds(5)));
}

TEST(HttpServer, Shutdown_AnswersWaitingRequests503) {
  std::shared_ptr<HttpResponder> kept;
  absl::Notification handed;
  HttpRoute route;
  route.method = "GET";
  route.path = "/never";
  route.handle = [&](HttpRequest, std::shared_ptr<HttpResponder> responder) {
    kept = responder;
    handed.Notify();
  };
  HttpServerOptions options;
  options.routes = {route};
  std::unique_ptr<HttpServer> server = StartOrDie(std::move(options));
  RawConnection waiting(server->port());
  waiting.Send("GET /never HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(handed.WaitForNotificationWithTimeout(absl::Seconds(5)));
  server->Shutdown();
  waiting.ReadUntil("\r\n\r\n", absl::Seconds(5));
  EXPECT_THAT(waiting.read(), HasSubstr("HTTP/1.1 503"));
  kept->Respond(HttpResponse::Text(200, "too late"));  // ignored, no crash
  server->Shutdown();
}

TEST(HttpServer, Start_PortInUse_Unavailable) {
  std::unique_ptr<HttpServer> first = StartOrDie(HttpServerOptions());
  HttpServerOptions options;
  options.port = first->port();
  EXPECT_EQ(HttpServer::Start(std::move(options)).status().code(), absl::StatusCode::kUnavailable);
}

TEST(HttpServer, Start_HalfATlsPair_InvalidArgument) {
  HttpServerOptions options;
  options.tls_cert_file = "/nonexistent/cert.pem";
  EXPECT_EQ(HttpServer::Start(std::move(options)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace taskboard::http
