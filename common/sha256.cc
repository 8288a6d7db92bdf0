#include "common/sha256.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"

namespace taskboard {

std::string Sha256Hex(absl::string_view data) {
  // Fetched once: OpenSSL 3 otherwise looks the algorithm up in its provider
  // registry on every call, which cost more than hashing a phase's inputs.
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length,
             kSha256 != nullptr ? kSha256 : EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace taskboard
