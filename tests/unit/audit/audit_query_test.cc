#include "scheduler/audit/audit_query.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"

namespace taskboard::audit {
namespace {

v1::AuditEvent Event(const std::string& actor, const std::string& method,
                     const std::string& target) {
  v1::AuditEvent event;
  event.set_actor(actor);
  event.set_method(method);
  event.set_target(target);
  return event;
}

TEST(AuditQueryTest, Matches_EmptyFilters_MatchEverything) {
  EXPECT_TRUE(Matches(AuditQuery{}, Event("ci", "Scheduler.SubmitRun", "r1")));
}

TEST(AuditQueryTest, Matches_ActorTargetAndMethod_AreExact) {
  AuditQuery query;
  query.actor = "ci";
  query.target = "r1";
  EXPECT_TRUE(Matches(query, Event("ci", "Scheduler.SubmitRun", "r1")));
  EXPECT_FALSE(Matches(query, Event("cid", "Scheduler.SubmitRun", "r1")));
  EXPECT_FALSE(Matches(query, Event("ci", "Scheduler.SubmitRun", "r10")));
}

TEST(AuditQueryTest, Matches_Method_ByFullOrShortName) {
  AuditQuery query;
  query.method = "CancelRun";
  EXPECT_TRUE(Matches(query, Event("a", "Scheduler.CancelRun", "")));
  EXPECT_FALSE(Matches(query, Event("a", "Scheduler.SubmitRun", "")));
  query.method = "Scheduler.CancelRun";
  EXPECT_TRUE(Matches(query, Event("a", "Scheduler.CancelRun", "")));
  query.method = "Run";
  EXPECT_FALSE(Matches(query, Event("a", "Scheduler.CancelRun", "")));
}

TEST(AuditQueryTest, QueryOf_PageSize_DefaultsAndBounds) {
  v1::ListAuditEventsRequest request;
  absl::StatusOr<AuditQuery> query = QueryOf(request, std::nullopt);
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->page_size, kDefaultPageSize);
  request.set_page_size(kMaxPageSize + 1);
  EXPECT_EQ(QueryOf(request, std::nullopt).status().code(), absl::StatusCode::kInvalidArgument);
  request.set_page_size(-1);
  EXPECT_EQ(QueryOf(request, std::nullopt).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AuditQueryTest, QueryOf_UntilBeforeSince_IsInvalid) {
  v1::ListAuditEventsRequest request;
  request.mutable_since()->set_seconds(200);
  request.mutable_until()->set_seconds(100);
  EXPECT_EQ(QueryOf(request, std::nullopt).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AuditQueryTest, QueryOf_TimeRange_InMicros) {
  v1::ListAuditEventsRequest request;
  request.mutable_since()->set_seconds(2);
  request.mutable_until()->set_seconds(3);
  absl::StatusOr<AuditQuery> query = QueryOf(request, "acme");
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->since_micros, 2'000'000u);
  EXPECT_EQ(query->until_micros, 3'000'000u);
}

TEST(AuditQueryTest, QueryOf_PageTokenOfAnotherTenant_IsInvalid) {
  v1::ListAuditEventsRequest request;
  request.set_page_token(PageToken(store::keys::AuditRecord("other", 5)));
  absl::Status status = QueryOf(request, "acme").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), testing::HasSubstr("page_token"));
  request.set_page_token(PageToken(store::keys::AuditRecord("acme", 5)));
  absl::StatusOr<AuditQuery> query = QueryOf(request, "acme");
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->resume_key, store::keys::AuditRecord("acme", 5));
}

TEST(AuditQueryTest, QueryOf_TenantPageTokenForEveryTenant_IsInvalid) {
  v1::ListAuditEventsRequest request;
  request.set_page_token(PageToken(store::keys::AuditRecord("acme", 5)));
  EXPECT_EQ(QueryOf(request, std::nullopt).status().code(), absl::StatusCode::kInvalidArgument);
  request.set_page_token("!!not base64!!");
  EXPECT_EQ(QueryOf(request, std::nullopt).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AuditKeysTest, RecordAndIndexKeys_RoundTripAndSortByTime) {
  namespace keys = store::keys;
  EXPECT_LT(keys::AuditRecord("acme", 9), keys::AuditRecord("acme", 10));
  EXPECT_LT(keys::AuditRecord("acme", 1u << 20), keys::AuditRecord("acme", 1u << 21));
  EXPECT_LT(keys::AuditByTime(9, "zz"), keys::AuditByTime(10, "aa"));
  // One tenant's records are one prefix, apart from a tenant whose name it starts.
  EXPECT_FALSE(absl::StartsWith(keys::AuditRecord("acme2", 1), keys::AuditRecordsOfTenant("acme")));
  std::optional<keys::AuditKey> record = keys::ParseAuditRecord(keys::AuditRecord("acme", 42));
  ASSERT_TRUE(record.has_value());
  EXPECT_EQ(record->tenant, "acme");
  EXPECT_EQ(record->micros, 42u);
  std::optional<keys::AuditKey> index = keys::ParseAuditByTime(keys::AuditByTime(42, "acme"));
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->tenant, "acme");
  EXPECT_EQ(index->micros, 42u);
  EXPECT_FALSE(keys::ParseAuditRecord(keys::AuditByTime(42, "acme")).has_value());
  EXPECT_FALSE(keys::ParseAuditByTime(keys::AuditRecord("acme", 42)).has_value());
}

}  // namespace
}  // namespace taskboard::audit
