#include "scheduler/ha/sha256_stream.h"

#include <openssl/evp.h>

#include "absl/strings/escaping.h"

namespace taskboard::ha {

Sha256Stream::Sha256Stream() : context_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(context_, EVP_sha256(), nullptr);
}

Sha256Stream::~Sha256Stream() { EVP_MD_CTX_free(context_); }

void Sha256Stream::Update(absl::string_view data) {
  EVP_DigestUpdate(context_, data.data(), data.size());
}

std::string Sha256Stream::FinishHex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(context_, digest, &length);
  EVP_DigestInit_ex(context_, EVP_sha256(), nullptr);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace taskboard::ha
