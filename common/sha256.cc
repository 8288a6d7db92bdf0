#include "common/sha256.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"

namespace taskboard {
namespace {

// Fetched once: OpenSSL 3 otherwise looks the algorithm up in its provider
// registry on every call, which cost more than hashing a phase's inputs.
const EVP_MD* Sha256Algorithm() {
  static EVP_MD* const kSha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  return kSha256 != nullptr ? kSha256 : EVP_sha256();
}

std::string DigestHex(const unsigned char* digest, unsigned int length) {
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace

std::string Sha256Hex(absl::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, Sha256Algorithm(), nullptr);
  return DigestHex(digest, length);
}

Sha256Stream::Sha256Stream() : context_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(context_, Sha256Algorithm(), nullptr);
}

Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(context_); }

void Sha256Stream::Update(absl::string_view data) {
  EVP_DigestUpdate(context_, data.data(), data.size());
}

std::string Sha256Stream::FinishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context_, digest, &length);
  EVP_DigestInit_ex(context_, Sha256Algorithm(), nullptr);
  return DigestHex(digest, length);
}

}  // namespace taskboard
