#include "scheduler/auth/principal.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::auth {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

Caller As(Role role, std::string tenant) {
  Caller caller;
  caller.principal = Principal{.name = "alice", .role = role, .tenant = std::move(tenant)};
  return caller;
}

TEST(TenantToRead, ClientReadsItsOwnTenantNamedOrNot) {
  const Caller client = As(Role::kClient, "acme");
  EXPECT_THAT(*client.TenantToRead(""), Optional(std::string("acme")));
  EXPECT_THAT(*client.TenantToRead("acme"), Optional(std::string("acme")));
}

TEST(TenantToRead, ClientNamingAnotherTenant_PermissionDeniedSayingWhich) {
  absl::StatusOr<std::optional<std::string>> read =
      As(Role::kClient, "acme").TenantToRead("globex");
  ASSERT_EQ(read.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(read.status().message(), HasSubstr("reads tenant 'acme' only, not 'globex'"));
}

TEST(TenantToRead, AdminAndNoAuthentication_ReadTheOneNamedOrEvery) {
  const Caller admin = As(Role::kAdmin, "");
  EXPECT_EQ(*admin.TenantToRead(""), std::nullopt);
  EXPECT_THAT(*admin.TenantToRead("globex"), Optional(std::string("globex")));
  const Caller anyone;
  EXPECT_EQ(*anyone.TenantToRead(""), std::nullopt);
  EXPECT_THAT(*anyone.TenantToRead("acme"), Optional(std::string("acme")));
}

}  // namespace
}  // namespace taskboard::auth
