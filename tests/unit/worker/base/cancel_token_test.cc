// CancelToken (worker/base/cancel_token.h): its descriptor is made on the
// first fd() call, and is readable once the token is cancelled, whether the
// cancel came before that call or after it.

#include "worker/base/cancel_token.h"

#include <poll.h>

#include <thread>

#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

// Whether `fd` is readable now (no waiting).
bool Readable(int fd) {
  pollfd poll_fd = {fd, POLLIN, 0};
  return poll(&poll_fd, 1, 0) == 1 && (poll_fd.revents & POLLIN) != 0;
}

TEST(CancelToken, FdAskedBeforeCancel_BecomesReadableOnCancel) {
  CancelToken token;
  const int fd = token.fd();
  ASSERT_GE(fd, 0);
  EXPECT_FALSE(Readable(fd));
  EXPECT_TRUE(token.Cancel("stop"));
  EXPECT_TRUE(Readable(fd));
  EXPECT_EQ(token.fd(), fd) << "one descriptor per token";
}

TEST(CancelToken, CancelledBeforeTheFdWasAskedFor_FdIsReadableAtOnce) {
  CancelToken token;
  EXPECT_TRUE(token.Cancel("stop"));
  const int fd = token.fd();
  ASSERT_GE(fd, 0);
  EXPECT_TRUE(Readable(fd));
}

TEST(CancelToken, SecondCancel_KeepsTheFirstReason) {
  CancelToken token;
  EXPECT_TRUE(token.Cancel("first"));
  EXPECT_FALSE(token.Cancel("second"));
  EXPECT_TRUE(token.cancelled());
  EXPECT_EQ(token.reason(), "first");
}

TEST(CancelToken, CancelRacingTheFirstFd_FdEndsUpReadable) {
  // Whichever wins, the descriptor the agent polls is signalled.
  for (int round = 0; round < 200; ++round) {
    CancelToken token;
    std::thread canceller([&] { token.Cancel("race"); });
    const int fd = token.fd();
    canceller.join();
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(Readable(fd)) << "round " << round;
  }
}

}  // namespace
}  // namespace taskboard::worker
