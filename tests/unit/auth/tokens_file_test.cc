#include "scheduler/auth/tokens_file.h"

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/sha256.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard::auth {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kClientToken[] = "client-token-0123456789";
constexpr char kWorkerToken[] = "worker-token-0123456789";

TEST(TokensFileTest, Yaml_PlainAndHashedTokens_FindTheirPrincipals) {
  const std::string text = std::string(R"(
tokens:
  - token: client-token-0123456789
    name: alice
    role: client
    tenant: acme
  - sha256: )") + Sha256Hex(kWorkerToken) +
                           R"(
    name: pool
    role: worker
)";
  absl::StatusOr<TokenTable> table = ParseTokensFile(text);
  ASSERT_THAT(table.status(), IsOk());
  EXPECT_EQ(table->size(), 2u);
  const Principal* alice = table->Find(kClientToken);
  ASSERT_NE(alice, nullptr);
  EXPECT_EQ(alice->name, "alice");
  EXPECT_EQ(alice->role, Role::kClient);
  EXPECT_EQ(alice->tenant, "acme");
  const Principal* pool = table->Find(kWorkerToken);
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->role, Role::kWorker);
  EXPECT_EQ(table->Find("not-a-token-at-all-000"), nullptr);
}

TEST(TokensFileTest, Json_IsAccepted) {
  absl::StatusOr<TokenTable> table = ParseTokensFile(
      R"({"tokens": [{"token": "admin-token-0123456789", "name": "ops", "role": "admin"}]})");
  ASSERT_THAT(table.status(), IsOk());
  const Principal* ops = table->Find("admin-token-0123456789");
  ASSERT_NE(ops, nullptr);
  EXPECT_EQ(ops->role, Role::kAdmin);
  EXPECT_EQ(ops->tenant, "");
}

TEST(TokensFileTest, UppercaseHash_IsNormalised) {
  std::string hash = Sha256Hex(kClientToken);
  for (char& c : hash) c = static_cast<char>(std::toupper(c));
  absl::StatusOr<TokenTable> table =
      ParseTokensFile("tokens:\n  - {sha256: " + hash + ", name: a, role: client, tenant: t}\n");
  ASSERT_THAT(table.status(), IsOk());
  EXPECT_NE(table->Find(kClientToken), nullptr);
}

struct BadFile {
  const char* text;
  const char* message;
};

class TokensFileErrorTest : public ::testing::TestWithParam<BadFile> {};

TEST_P(TokensFileErrorTest, MalformedFile_InvalidArgumentSayingWhatToFix) {
  EXPECT_THAT(ParseTokensFile(GetParam().text).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TokensFileErrorTest,
    ::testing::Values(
        BadFile{"tokens: [", "line"}, BadFile{"users: []", "`tokens` list"},
        BadFile{"tokens: []", "every call would be refused"},
        BadFile{"tokens: [plain]", "entry 1: is not a mapping"},
        BadFile{"tokens:\n  - {name: a, role: client, tenant: t}\n", "exactly one of `token`"},
        BadFile{"tokens:\n  - {token: short, name: a, role: client, tenant: t}\n",
                "openssl rand -hex 32"},
        BadFile{"tokens:\n  - {sha256: abc, name: a, role: client, tenant: t}\n", "64 hex digits"},
        BadFile{"tokens:\n  - {token: client-token-0123456789, role: client, tenant: t}\n",
                "`name` is missing"},
        BadFile{"tokens:\n  - {token: client-token-0123456789, name: a, role: root}\n",
                "entry 1 ('a'): unknown role 'root'; use client, worker or admin"},
        BadFile{"tokens:\n  - {token: client-token-0123456789, name: a, role: client}\n",
                "a client needs a `tenant`"},
        BadFile{"tokens:\n  - {token: client-token-0123456789, name: a, role: client, "
                "tenant: a/b}\n",
                "letters, digits"},
        BadFile{"tokens:\n  - {token: client-token-0123456789, name: a, role: client, "
                "tennant: t}\n",
                "unknown field `tennant`"},
        BadFile{"tokens:\n  - {token: client-token-0123456789, name: a, role: admin}\n"
                "  - {token: client-token-0123456789, name: b, role: admin}\n",
                "entry 2 ('b'): the same token is listed twice"}),
    [](const ::testing::TestParamInfo<BadFile>& info) { return absl::StrCat("Case", info.index); });

TEST(TokensFileTest, LoadTokensFile_MissingFile_NamesThePathAndTheFlag) {
  EXPECT_THAT(
      LoadTokensFile("/nonexistent/tokens.yaml").status(),
      StatusIs(absl::StatusCode::kNotFound, ::testing::AllOf(HasSubstr("/nonexistent/tokens.yaml"),
                                                             HasSubstr("--auth-tokens"))));
}

TEST(TokensFileTest, LoadTokensFile_BadEntry_NamesThePath) {
  testing::TempDir dir;
  const std::string path = (dir.path() / "tokens.yaml").string();
  std::ofstream(path) << "tokens:\n  - {token: x, name: a, role: admin}\n";
  EXPECT_THAT(LoadTokensFile(path).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr(path), HasSubstr("entry 1 ('a')"))));
}

}  // namespace
}  // namespace taskboard::auth
