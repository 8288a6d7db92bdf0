#include "scheduler/triggers/hub_signature.h"

#include <openssl/crypto.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/hmac_sha256.h"

namespace taskboard::triggers {

std::string HubSignature(absl::string_view secret, absl::string_view body) {
  return absl::StrCat("sha256=", HmacSha256Hex(secret, body));
}

bool HubSignatureMatches(absl::string_view secret, absl::string_view body,
                         absl::string_view header) {
  constexpr absl::string_view kPrefix = "sha256=";
  if (!absl::StartsWith(header, kPrefix)) return false;
  const std::string given = absl::AsciiStrToLower(header.substr(kPrefix.size()));
  const std::string expected = HmacSha256Hex(secret, body);
  if (given.size() != expected.size()) return false;  // the length is public: 64
  return CRYPTO_memcmp(given.data(), expected.data(), expected.size()) == 0;
}

}  // namespace taskboard::triggers
