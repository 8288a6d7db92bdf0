#include "scheduler/auth/authenticator.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/auth/method_roles.h"

namespace taskboard::auth {
namespace {

constexpr char kHowToPass[] =
    "pass one as the `authorization: Bearer <token>` header (taskboard CLI and worker: --token "
    "or TASKBOARD_TOKEN)";

}  // namespace

absl::StatusOr<std::unique_ptr<Authenticator>> Authenticator::FromFile(std::string path) {
  absl::StatusOr<TokenTable> table = LoadTokensFile(path);
  if (!table.ok()) return table.status();
  return std::unique_ptr<Authenticator>(new Authenticator(std::move(path), *std::move(table)));
}

Authenticator::Authenticator(TokenTable table) : Authenticator("", std::move(table)) {}

Authenticator::Authenticator(std::string path, TokenTable table)
    : path_(std::move(path)), table_(std::make_shared<const TokenTable>(std::move(table))) {}

absl::StatusOr<Principal> Authenticator::Admit(absl::string_view authorization,
                                               absl::string_view method) const {
  if (authorization.empty()) {
    return absl::UnauthenticatedError(
        absl::StrCat(method, " needs a bearer token and the call has none; ", kHowToPass));
  }
  absl::StatusOr<Principal> principal = Identify(authorization);
  if (!principal.ok()) return principal.status();
  if (absl::Status role = CheckRole(*principal, method); !role.ok()) return role;
  return principal;
}

absl::StatusOr<Principal> Authenticator::Identify(absl::string_view authorization) const {
  if (authorization.empty()) {
    return absl::UnauthenticatedError(absl::StrCat("the call has no bearer token; ", kHowToPass));
  }
  absl::string_view token = absl::StripAsciiWhitespace(authorization);
  if (!absl::StartsWithIgnoreCase(token, "bearer ")) {
    return absl::UnauthenticatedError(
        absl::StrCat("the authorization header is not of the form `Bearer <token>`; ", kHowToPass));
  }
  token = absl::StripLeadingAsciiWhitespace(token.substr(7));
  std::shared_ptr<const TokenTable> table;
  {
    absl::MutexLock lock(&mu_);
    table = table_;
  }
  const Principal* principal = table->Find(token);
  if (principal == nullptr) {
    return absl::UnauthenticatedError(absl::StrCat(
        "the bearer token is not in the scheduler's tokens file (a typo, or a revoked token); ",
        kHowToPass));
  }
  return *principal;
}

absl::StatusOr<size_t> Authenticator::Reload() {
  if (path_.empty()) return absl::FailedPreconditionError("no tokens file to reload");
  absl::StatusOr<TokenTable> table = LoadTokensFile(path_);
  if (!table.ok()) return table.status();
  auto loaded = std::make_shared<const TokenTable>(*std::move(table));
  absl::MutexLock lock(&mu_);
  table_ = std::move(loaded);
  return table_->size();
}

size_t Authenticator::size() const {
  absl::MutexLock lock(&mu_);
  return table_->size();
}

}  // namespace taskboard::auth
