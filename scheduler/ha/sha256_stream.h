#ifndef TASKBOARD_SCHEDULER_HA_SHA256_STREAM_H_
#define TASKBOARD_SCHEDULER_HA_SHA256_STREAM_H_

// SHA-256 of data that arrives in pieces (a checkpoint file in chunks), on
// OpenSSL's EVP interface.
//
// Thread safety: one thread at a time.

#include <string>

#include "absl/strings/string_view.h"

struct evp_md_ctx_st;

namespace taskboard::ha {

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

}  // namespace taskboard::ha

#endif  // TASKBOARD_SCHEDULER_HA_SHA256_STREAM_H_
