// The recorder, reader and retention sweep over the in-memory store, with a
// commit that writes at once (the engine's commit path is the scheduler's;
// tests/integration/audit_trail_test.cc runs the real one).

#include "scheduler/audit/audit_recorder.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/audit/audit_log_sink.h"
#include "scheduler/audit/audit_query.h"
#include "scheduler/audit/audit_reader.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/memory_store.h"

namespace taskboard::audit {
namespace {

class AuditRecorderTest : public testing::Test {
 protected:
  std::unique_ptr<AuditRecorder> Make(absl::Duration retention = absl::ZeroDuration(),
                                      RefusalLimits refused = {}) {
    AuditRecorderOptions options;
    options.commit = [this](store::WriteBatch writes, std::function<void()> written) {
      if (!leading_) return false;
      EXPECT_TRUE(store_.Write(writes).ok());
      if (written) written();
      return true;
    };
    options.store = [this]() -> store::Store* { return &store_; };
    options.retention = retention;
    // Sweeps in these tests are called, not timed.
    options.sweep_every = absl::Hours(1);
    options.refused = refused;
    options.now = [this] { return now_; };
    absl::StatusOr<std::unique_ptr<AuditRecorder>> recorder = AuditRecorder::Create(options);
    EXPECT_TRUE(recorder.ok()) << recorder.status();
    return *std::move(recorder);
  }

  static v1::AuditEvent Event(const std::string& tenant, const std::string& actor,
                              const std::string& method, const std::string& target) {
    v1::AuditEvent event;
    event.set_tenant(tenant);
    event.set_actor(actor);
    event.set_method(method);
    event.set_target(target);
    SetOutcome(absl::OkStatus(), false, event);
    return event;
  }

  v1::ListAuditEventsResponse Read(std::optional<std::string> tenant,
                                   v1::ListAuditEventsRequest request = {}) {
    absl::StatusOr<AuditQuery> query = QueryOf(request, std::move(tenant));
    EXPECT_TRUE(query.ok()) << query.status();
    absl::StatusOr<v1::ListAuditEventsResponse> page = ReadAuditPage(store_, *query);
    EXPECT_TRUE(page.ok()) << page.status();
    return *std::move(page);
  }

  store::MemoryStore store_;
  bool leading_ = true;
  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
};

TEST_F(AuditRecorderTest, Record_ReadBack_NewestFirstWithTimeAndId) {
  std::unique_ptr<AuditRecorder> recorder = Make();
  recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "r1"));
  now_ += absl::Seconds(1);
  recorder->Record(Event("acme", "ci", "Scheduler.CancelRun", "r1"));
  v1::ListAuditEventsResponse page = Read("acme");
  ASSERT_EQ(page.events_size(), 2);
  EXPECT_EQ(page.events(0).method(), "Scheduler.CancelRun");
  EXPECT_EQ(page.events(1).method(), "Scheduler.SubmitRun");
  EXPECT_EQ(page.events(1).time().seconds(), 1'800'000'000);
  EXPECT_EQ(page.events(0).time().seconds(), 1'800'000'001);
  EXPECT_NE(page.events(0).id(), page.events(1).id());
  EXPECT_EQ(page.events(0).outcome(), v1::AUDIT_OUTCOME_OK);
  EXPECT_TRUE(page.next_page_token().empty());
}

TEST_F(AuditRecorderTest, Record_SameMicrosecond_KeepsEveryRecord) {
  std::unique_ptr<AuditRecorder> recorder = Make();
  for (int i = 0; i < 50; ++i) recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "r"));
  EXPECT_EQ(Read("acme").events_size(), 50);
  EXPECT_EQ(Read(std::nullopt).events_size(), 50);
}

TEST_F(AuditRecorderTest, Read_OneTenant_SeesOnlyItsOwn) {
  std::unique_ptr<AuditRecorder> recorder = Make();
  recorder->Record(Event("acme", "a", "Scheduler.SubmitRun", "r1"));
  recorder->Record(Event("beta", "b", "Scheduler.SubmitRun", "r2"));
  recorder->Record(Event("acme2", "c", "Scheduler.SubmitRun", "r3"));
  v1::ListAuditEventsResponse acme = Read("acme");
  ASSERT_EQ(acme.events_size(), 1);
  EXPECT_EQ(acme.events(0).target(), "r1");
  v1::ListAuditEventsResponse all = Read(std::nullopt);
  ASSERT_EQ(all.events_size(), 3);
  EXPECT_EQ(all.events(0).tenant(), "acme2");
  EXPECT_EQ(all.events(2).tenant(), "acme");
}

TEST_F(AuditRecorderTest, Read_Filters_ActorMethodTargetAndTime) {
  std::unique_ptr<AuditRecorder> recorder = Make();
  recorder->Record(Event("acme", "alice", "Scheduler.SubmitRun", "r1"));
  now_ += absl::Seconds(10);
  recorder->Record(Event("acme", "bob", "Scheduler.CancelRun", "r1"));
  now_ += absl::Seconds(10);
  recorder->Record(Event("acme", "alice", "Scheduler.CancelRun", "r2"));
  v1::ListAuditEventsRequest request;
  request.set_actor("alice");
  EXPECT_EQ(Read("acme", request).events_size(), 2);
  request.set_method("CancelRun");
  ASSERT_EQ(Read("acme", request).events_size(), 1);
  EXPECT_EQ(Read("acme", request).events(0).target(), "r2");
  v1::ListAuditEventsRequest by_target;
  by_target.set_target("r1");
  EXPECT_EQ(Read(std::nullopt, by_target).events_size(), 2);
  v1::ListAuditEventsRequest window;
  window.mutable_since()->set_seconds(1'800'000'005);
  window.mutable_until()->set_seconds(1'800'000'015);
  for (std::optional<std::string> tenant :
       {std::optional<std::string>("acme"), std::optional<std::string>()}) {
    v1::ListAuditEventsResponse page = Read(tenant, window);
    ASSERT_EQ(page.events_size(), 1);
    EXPECT_EQ(page.events(0).actor(), "bob");
  }
}

TEST_F(AuditRecorderTest, Read_Pages_FollowTokensWithoutGapsOrRepeats) {
  std::unique_ptr<AuditRecorder> recorder = Make();
  for (int i = 0; i < 25; ++i) {
    recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "r" + std::to_string(i)));
  }
  for (std::optional<std::string> tenant :
       {std::optional<std::string>("acme"), std::optional<std::string>()}) {
    v1::ListAuditEventsRequest request;
    request.set_page_size(10);
    std::vector<std::string> seen;
    int pages = 0;
    while (true) {
      v1::ListAuditEventsResponse page = Read(tenant, request);
      ++pages;
      for (const v1::AuditEvent& event : page.events()) seen.push_back(event.target());
      if (page.next_page_token().empty()) break;
      request.set_page_token(page.next_page_token());
      ASSERT_LT(pages, 10);
    }
    EXPECT_EQ(pages, 3);
    ASSERT_EQ(seen.size(), 25u);
    EXPECT_EQ(seen.front(), "r24");
    EXPECT_EQ(seen.back(), "r0");
  }
}

TEST_F(AuditRecorderTest, Record_NotLeading_WritesNothing) {
  std::unique_ptr<AuditRecorder> recorder = Make();
  leading_ = false;
  recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "r1"));
  EXPECT_EQ(Read(std::nullopt).events_size(), 0);
}

TEST_F(AuditRecorderTest, RecordRefused_OverTheBound_IsDroppedNotWritten) {
  RefusalLimits limits;
  limits.per_source_per_second = 1;
  limits.per_source_burst = 5;
  limits.total_per_second = 100;
  limits.total_burst = 100;
  std::unique_ptr<AuditRecorder> recorder = Make(absl::ZeroDuration(), limits);
  v1::AuditEvent refused = Event("", "", "Scheduler.SubmitRun", "");
  refused.set_peer("ipv4:10.0.0.9:4000");
  SetOutcome(absl::UnauthenticatedError("no token"), true, refused);
  int recorded = 0;
  for (int i = 0; i < 1000; ++i) recorded += recorder->RecordRefused(refused, false) ? 1 : 0;
  EXPECT_EQ(recorded, 5);
  v1::ListAuditEventsResponse page = Read(std::nullopt);
  ASSERT_EQ(page.events_size(), 5);
  EXPECT_EQ(page.events(0).outcome(), v1::AUDIT_OUTCOME_REFUSED);
  EXPECT_EQ(page.events(0).code(), "UNAUTHENTICATED");
  // Another address has its own bucket.
  refused.set_peer("ipv4:10.0.0.10:4000");
  EXPECT_TRUE(recorder->RecordRefused(refused, false));
}

TEST_F(AuditRecorderTest, SweepOnce_DeletesOnlyRecordsPastRetention) {
  std::unique_ptr<AuditRecorder> recorder = Make(absl::Hours(1));
  recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "old"));
  recorder->Record(Event("beta", "ci", "Scheduler.SubmitRun", "old-beta"));
  now_ += absl::Minutes(50);
  recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "new"));
  now_ += absl::Minutes(20);
  absl::StatusOr<int> swept = recorder->SweepOnce();
  ASSERT_TRUE(swept.ok()) << swept.status();
  EXPECT_EQ(*swept, 2);
  v1::ListAuditEventsResponse all = Read(std::nullopt);
  ASSERT_EQ(all.events_size(), 1);
  EXPECT_EQ(all.events(0).target(), "new");
  EXPECT_EQ(Read("beta").events_size(), 0);
  // Nothing of the swept records is left, index keys included.
  int keys = 0;
  ASSERT_TRUE(store_
                  .ScanPrefix(store::Column::kMeta, store::keys::AuditTimeIndex(),
                              [&](absl::string_view, absl::string_view) {
                                ++keys;
                                return true;
                              })
                  .ok());
  EXPECT_EQ(keys, 1);
  EXPECT_EQ(*recorder->SweepOnce(), 0);
}

TEST_F(AuditRecorderTest, SweepOnce_ManyRecords_DeletesThemInBatches) {
  std::unique_ptr<AuditRecorder> recorder = Make(absl::Hours(1));
  for (int i = 0; i < 2500; ++i) recorder->Record(Event("acme", "ci", "Scheduler.SubmitRun", "r"));
  now_ += absl::Hours(2);
  EXPECT_EQ(*recorder->SweepOnce(), 2500);
  EXPECT_EQ(Read(std::nullopt).events_size(), 0);
}

TEST(AuditLogSinkTest, Line_IsOneJsonObjectWithTheType) {
  v1::AuditEvent event;
  event.set_actor("ci");
  event.set_method("Scheduler.SubmitRun");
  event.set_outcome(v1::AUDIT_OUTCOME_REFUSED);
  const std::string line = AuditLogSink::Line(event);
  EXPECT_TRUE(absl::StartsWith(line, R"({"type":"audit",)")) << line;
  EXPECT_THAT(line, testing::HasSubstr(R"("actor":"ci")"));
  EXPECT_THAT(line, testing::HasSubstr(R"("outcome":"AUDIT_OUTCOME_REFUSED")"));
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

TEST(AuditLogSinkTest, Open_OffIsNullAndABadPathSaysWhich) {
  absl::StatusOr<std::unique_ptr<AuditLogSink>> off = AuditLogSink::Open("off");
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(*off, nullptr);
  absl::StatusOr<std::unique_ptr<AuditLogSink>> bad = AuditLogSink::Open("/nonexistent/dir/a.log");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(bad.status().message(), testing::HasSubstr("/nonexistent/dir/a.log"));
}

}  // namespace
}  // namespace taskboard::audit
