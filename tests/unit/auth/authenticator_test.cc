#include "scheduler/auth/authenticator.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::auth {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kSubmitRun[] = "/taskboard.v1.Scheduler/SubmitRun";
constexpr char kListWorkers[] = "/taskboard.v1.Scheduler/ListWorkers";
constexpr char kConnect[] = "/taskboard.v1.WorkerGateway/Connect";

constexpr char kTokens[] = R"(tokens:
  - {token: client-token-0123456789, name: alice, role: client, tenant: acme}
  - {token: worker-token-0123456789, name: pool, role: worker}
  - {token: admin-token-01234567890, name: ops, role: admin, tenant: ops}
)";

Authenticator Make() { return Authenticator(*ParseTokensFile(kTokens)); }

TEST(AuthenticatorTest, NoHeader_UnauthenticatedSayingHowToPassOne) {
  EXPECT_THAT(
      Make().Admit("", kSubmitRun).status(),
      StatusIs(absl::StatusCode::kUnauthenticated,
               ::testing::AllOf(HasSubstr("authorization: Bearer"), HasSubstr("TASKBOARD_TOKEN"))));
}

TEST(AuthenticatorTest, NotBearer_Unauthenticated) {
  EXPECT_THAT(Make().Admit("Basic client-token-0123456789", kSubmitRun).status(),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("Bearer <token>")));
}

TEST(AuthenticatorTest, UnknownToken_Unauthenticated) {
  EXPECT_THAT(Make().Admit("Bearer client-token-0123456780", kSubmitRun).status(),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("not in the scheduler's")));
}

TEST(AuthenticatorTest, ClientToken_SubmitRun_AdmittedWithItsTenant) {
  absl::StatusOr<Principal> principal = Make().Admit("Bearer client-token-0123456789", kSubmitRun);
  ASSERT_THAT(principal.status(), IsOk());
  EXPECT_EQ(principal->name, "alice");
  EXPECT_EQ(principal->tenant, "acme");
}

TEST(AuthenticatorTest, SchemeIsCaseInsensitive) {
  EXPECT_THAT(Make().Admit("bearer client-token-0123456789", kSubmitRun).status(), IsOk());
}

TEST(AuthenticatorTest, ClientToken_ListWorkers_PermissionDeniedNamingTheRole) {
  EXPECT_THAT(Make().Admit("Bearer client-token-0123456789", kListWorkers).status(),
              StatusIs(absl::StatusCode::kPermissionDenied,
                       ::testing::AllOf(HasSubstr("needs role admin"), HasSubstr("'alice'"),
                                        HasSubstr("has role client"))));
}

TEST(AuthenticatorTest, WorkerToken_SubmitRun_PermissionDenied) {
  EXPECT_THAT(Make().Admit("Bearer worker-token-0123456789", kSubmitRun).status(),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("client or admin")));
}

TEST(AuthenticatorTest, ClientToken_Connect_PermissionDenied) {
  EXPECT_THAT(Make().Admit("Bearer client-token-0123456789", kConnect).status(),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("worker or admin")));
}

TEST(AuthenticatorTest, AdminToken_EveryMethod_Admitted) {
  for (const char* method : {kSubmitRun, kListWorkers, kConnect}) {
    EXPECT_THAT(Make().Admit("Bearer admin-token-01234567890", method).status(), IsOk()) << method;
  }
}

TEST(AuthenticatorTest, Reload_NewFileTakesEffect_BadFileKeepsTheOld) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "tokens.yaml").string();
  std::ofstream(path) << kTokens;
  absl::StatusOr<std::unique_ptr<Authenticator>> auth = Authenticator::FromFile(path);
  ASSERT_THAT(auth.status(), IsOk());
  std::ofstream(path, std::ios::trunc)
      << "tokens:\n  - {token: fresh-token-0123456789, name: bob, role: client, tenant: b}\n";
  ASSERT_THAT((*auth)->Reload().status(), IsOk());
  EXPECT_THAT((*auth)->Admit("Bearer fresh-token-0123456789", kSubmitRun).status(), IsOk());
  EXPECT_THAT((*auth)->Admit("Bearer client-token-0123456789", kSubmitRun).status(),
              StatusIs(absl::StatusCode::kUnauthenticated));

  std::ofstream(path, std::ios::trunc) << "tokens: [";
  EXPECT_THAT((*auth)->Reload().status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT((*auth)->Admit("Bearer fresh-token-0123456789", kSubmitRun).status(), IsOk());
}

}  // namespace
}  // namespace taskboard::auth
