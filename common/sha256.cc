#include "common/sha256.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"

namespace taskboard {

std::string Sha256Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace taskboard
