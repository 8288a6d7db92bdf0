#include "scheduler/web/request_guard.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::web {
namespace {

using ::testing::HasSubstr;

http::HttpRequest Head(std::initializer_list<std::pair<const char*, const char*>> headers) {
  http::HttpRequest head;
  head.method = "POST";
  head.path = "/api/v1/ListRuns";
  for (const auto& [name, value] : headers) head.headers[name] = value;
  return head;
}

TEST(CheckHost, LoopbackListener_TakesLoopbackNamesOnly) {
  RequestGuardOptions loopback{.loopback_listener = true};
  for (const char* host :
       {"127.0.0.1:9464", "localhost:9464", "LOCALHOST", "[::1]:80", "127.1.2.3"}) {
    EXPECT_TRUE(CheckHost(Head({{"host", host}}), loopback).ok()) << host;
  }
  const absl::Status rebound = CheckHost(Head({{"host", "attacker.example:9464"}}), loopback);
  EXPECT_EQ(rebound.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(rebound.message(), HasSubstr("'attacker.example'"));
  EXPECT_THAT(rebound.message(), HasSubstr("--http-allowed-hosts"));
  EXPECT_FALSE(CheckHost(Head({{"host", "localhost.attacker.example"}}), loopback).ok());
  // No Host at all is not a browser.
  EXPECT_TRUE(CheckHost(Head({}), loopback).ok());
}

TEST(CheckHost, AllowedHosts_AddToLoopbackAndBindOtherListeners) {
  RequestGuardOptions loopback{.loopback_listener = true, .allowed_hosts = {"tb.internal"}};
  EXPECT_TRUE(CheckHost(Head({{"host", "tb.internal:9464"}}), loopback).ok());
  EXPECT_TRUE(CheckHost(Head({{"host", "TB.INTERNAL"}}), loopback).ok());
  RequestGuardOptions open;
  EXPECT_TRUE(CheckHost(Head({{"host", "anything.example"}}), open).ok());
  RequestGuardOptions listed{.allowed_hosts = {"taskboard.example.com"}};
  EXPECT_TRUE(CheckHost(Head({{"host", "taskboard.example.com"}}), listed).ok());
  EXPECT_FALSE(CheckHost(Head({{"host", "other.example.com"}}), listed).ok());
}

TEST(CheckOrigin, OwnOriginOrNone_Pass_OthersRefused) {
  RequestGuardOptions options;
  EXPECT_TRUE(CheckOrigin(Head({{"host", "127.0.0.1:9464"}}), options).ok());
  EXPECT_TRUE(
      CheckOrigin(Head({{"host", "127.0.0.1:9464"}, {"origin", "http://127.0.0.1:9464"}}), options)
          .ok());
  const absl::Status foreign =
      CheckOrigin(Head({{"host", "127.0.0.1:9464"}, {"origin", "https://evil.example"}}), options);
  EXPECT_EQ(foreign.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(foreign.message(), HasSubstr("https://evil.example"));
  EXPECT_THAT(foreign.message(), HasSubstr("--http-allowed-origins"));
  EXPECT_FALSE(CheckOrigin(Head({{"host", "127.0.0.1:9464"}, {"origin", "null"}}), options).ok());
  // Another port on the same host is another origin.
  EXPECT_FALSE(
      CheckOrigin(Head({{"host", "127.0.0.1:9464"}, {"origin", "http://127.0.0.1:8080"}}), options)
          .ok());
  // HTTPS pages only match an HTTPS port.
  http::HttpRequest tls = Head({{"host", "tb:443"}, {"origin", "https://tb:443"}});
  tls.tls = true;
  EXPECT_TRUE(CheckOrigin(tls, options).ok());
  RequestGuardOptions allowed{.allowed_origins = {"https://console.example.com"}};
  EXPECT_TRUE(
      CheckOrigin(Head({{"host", "tb:9464"}, {"origin", "https://console.example.com"}}), allowed)
          .ok());
}

TEST(CheckJsonContentType, OnlyJson) {
  EXPECT_TRUE(CheckJsonContentType(Head({{"content-type", "application/json"}})).ok());
  EXPECT_TRUE(
      CheckJsonContentType(Head({{"content-type", "Application/JSON; charset=utf-8"}})).ok());
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded",
                           "multipart/form-data; boundary=x", "application/jsonp"}) {
    const absl::Status refused = CheckJsonContentType(Head({{"content-type", type}}));
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << type;
    EXPECT_THAT(refused.message(), HasSubstr("Content-Type: application/json")) << type;
  }
  EXPECT_THAT(CheckJsonContentType(Head({})).message(), HasSubstr("got none"));
}

TEST(CheckConsoleToken, RequiredWhenSet) {
  RequestGuardOptions none;
  EXPECT_TRUE(CheckConsoleToken(Head({}), none).ok());
  RequestGuardOptions set{.console_token = "0123456789abcdef0123"};
  EXPECT_TRUE(
      CheckConsoleToken(Head({{"authorization", "Bearer 0123456789abcdef0123"}}), set).ok());
  for (const char* given : {"", "Bearer ", "Bearer 0123456789abcdef012", "0123456789abcdef0123",
                            "Bearer 0123456789abcdef01234"}) {
    const absl::Status refused = CheckConsoleToken(Head({{"authorization", given}}), set);
    EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated) << given;
  }
}

}  // namespace
}  // namespace taskboard::web
