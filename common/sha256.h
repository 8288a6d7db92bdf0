#ifndef TASKBOARD_COMMON_SHA256_H_
#define TASKBOARD_COMMON_SHA256_H_

#include <string>

#include "absl/strings/string_view.h"

struct evp_md_ctx_st;

namespace taskboard {

// Lower-case hex SHA-256 of `data` (OpenSSL's implementation).
std::string Sha256Hex(absl::string_view data);

// SHA-256 of data that arrives in pieces (a checkpoint file in chunks).
//
// Thread safety: one thread at a time.
class Sha256Stream {
 public:
  Sha256Stream();
  ~Sha256Stream();
  Sha256Stream(const Sha256Stream&) = delete;
  Sha256Stream& operator=(const Sha256Stream&) = delete;

  void Update(absl::string_view data);
  // Lower-case hex of everything given; the stream starts over.
  std::string FinishHex();

 private:
  evp_md_ctx_st* context_;
};

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_SHA256_H_
