#include "tools/fake-llm/request_log.h"

#include <memory>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace taskboard::fake_llm {
namespace {

TEST(RequestLog, Append_StampsArrivalTimeInLogOrder) {
  std::unique_ptr<RequestLog> log = *RequestLog::Open("");
  const int64_t before = absl::ToUnixMillis(absl::Now());
  log->Append(Json{{"seq", 1}});
  log->Append(Json{{"seq", 2}});
  const int64_t after = absl::ToUnixMillis(absl::Now());

  const Json entries = log->Entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]["seq"], 1);
  const int64_t first = entries[0]["time_ms"].get<int64_t>();
  const int64_t second = entries[1]["time_ms"].get<int64_t>();
  EXPECT_GE(first, before);
  EXPECT_LE(first, second);
  EXPECT_LE(second, after);
}

}  // namespace
}  // namespace taskboard::fake_llm
