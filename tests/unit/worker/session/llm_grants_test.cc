// The worker's side of LLM governance against a fake session link: the
// test plays the scheduler (Welcome, LlmGrant, a lost stream) through
// LlmGrants, as the session does, and reads what was sent.

#include "worker/session/llm_grants.h"

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/worker/session/fake_llm_grant_link.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::StatusIs;
using ::taskboard::worker::testing::FakeLlmGrantLink;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

// OK, holding grant id `id` ("": ungoverned).
MATCHER_P(GrantIs, id, absl::StrCat("is OK with grant id '", id, "'")) {
  if (!arg.ok()) {
    *result_listener << "status " << arg.status();
    return false;
  }
  *result_listener << "grant id '" << *arg << "'";
  return *arg == id;
}

class LlmGrantsTest : public ::testing::Test {
 protected:
  LlmGrantsTest() { Recreate({}); }

  void Recreate(LlmGrantsOptions options) { grants_ = std::make_unique<LlmGrants>(link_, options); }

  static LlmTask Task() { return {.task_id = "scan", .lease_id = "l1", .run_id = "r1"}; }
  static LlmCallPlan Plan() {
    return {.model = "gpt-4o", .estimated_input_tokens = 1200, .max_output_tokens = 400};
  }

  // Acquire on its own thread, as an agent calls it.
  void StartAcquire(absl::Time deadline = absl::InfiniteFuture()) {
    acquirer_ = std::thread(
        [this, deadline] { result_ = grants_->Acquire(Task(), Plan(), &cancel_, deadline); });
  }
  absl::StatusOr<std::string> FinishAcquire() {
    acquirer_.join();
    return result_;
  }

  static v1::LlmGrant Granted(const std::string& request_id, const std::string& grant_id) {
    v1::LlmGrant grant;
    grant.set_request_id(request_id);
    grant.set_granted(true);
    grant.set_grant_id(grant_id);
    return grant;
  }

  FakeLlmGrantLink link_;
  std::unique_ptr<LlmGrants> grants_;
  CancelToken cancel_;
  std::thread acquirer_;
  absl::StatusOr<std::string> result_;
};

TEST_F(LlmGrantsTest, SchedulerDoesNotGovern_UngovernedAtOnceAndNothingSent) {
  EXPECT_THAT(grants_->OnWelcome(false), IsEmpty());
  EXPECT_THAT(grants_->Acquire(Task(), Plan(), &cancel_, absl::InfiniteFuture()), GrantIs(""));
  grants_->Report(Task(), "", Plan(), {.http_status = 200, .input_tokens = 5});
  EXPECT_THAT(link_.sent(), IsEmpty());
}

TEST_F(LlmGrantsTest, Governed_RequestCarriesTheCallAndTheGrantIdIsReturned) {
  grants_->OnWelcome(true);
  StartAcquire();
  std::optional<v1::ConnectRequest> sent = link_.WaitForMessage(0);
  ASSERT_TRUE(sent.has_value() && sent->has_llm_grant_request());
  const v1::LlmGrantRequest& request = sent->llm_grant_request();
  EXPECT_THAT(request.request_id(), StartsWith("lg-"));
  EXPECT_EQ(request.task_id(), "scan");
  EXPECT_EQ(request.lease_id(), "l1");
  EXPECT_EQ(request.model(), "gpt-4o");
  EXPECT_EQ(request.estimated_input_tokens(), 1200);
  EXPECT_EQ(request.max_output_tokens(), 400);
  grants_->OnGrant(Granted(request.request_id(), "grant-7"));
  EXPECT_THAT(FinishAcquire(), GrantIs("grant-7"));
}

TEST_F(LlmGrantsTest, Refused_FailedPreconditionWithTheSchedulersText) {
  grants_->OnWelcome(true);
  StartAcquire();
  std::optional<v1::ConnectRequest> sent = link_.WaitForMessage(0);
  ASSERT_TRUE(sent.has_value());
  v1::LlmGrant refusal;
  refusal.set_request_id(sent->llm_grant_request().request_id());
  refusal.set_error("run r1 would pass its budget of $5.00: raise it with --budget");
  grants_->OnGrant(refusal);
  EXPECT_THAT(FinishAcquire(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       "run r1 would pass its budget of $5.00: raise it with --budget"));
}

TEST_F(LlmGrantsTest, ConcurrentRequests_EachGetsItsOwnGrant) {
  grants_->OnWelcome(true);
  absl::StatusOr<std::string> second;
  StartAcquire();
  ASSERT_TRUE(link_.WaitForMessage(0).has_value());
  std::thread other(
      [&] { second = grants_->Acquire(Task(), Plan(), &cancel_, absl::InfiniteFuture()); });
  ASSERT_TRUE(link_.WaitForMessage(1).has_value());
  const std::vector<v1::ConnectRequest> sent = link_.sent();
  const std::string first_id = sent[0].llm_grant_request().request_id();
  const std::string second_id = sent[1].llm_grant_request().request_id();
  EXPECT_NE(first_id, second_id);
  grants_->OnGrant(Granted(second_id, "b"));
  other.join();
  grants_->OnGrant(Granted(first_id, "a"));
  EXPECT_THAT(FinishAcquire(), GrantIs("a"));
  EXPECT_THAT(second, GrantIs("b"));
}

TEST_F(LlmGrantsTest, CancelledWhileWaiting_Cancelled) {
  grants_->OnWelcome(true);
  StartAcquire();
  ASSERT_TRUE(link_.WaitForMessage(0).has_value());
  cancel_.Cancel("run cancelled");
  EXPECT_THAT(FinishAcquire(), StatusIs(absl::StatusCode::kCancelled, "cancelled: run cancelled"));
}

// The scheduler still held the request: the grant it makes later is handed
// back at once as a call not made, instead of holding the model's limits
// until the lease ends.
TEST_F(LlmGrantsTest, GrantAfterTheWaitWasGivenUp_ReportedAsACallNotMade) {
  grants_->OnWelcome(true);
  StartAcquire();
  std::optional<v1::ConnectRequest> sent = link_.WaitForMessage(0);
  ASSERT_TRUE(sent.has_value());
  cancel_.Cancel("run cancelled");
  ASSERT_THAT(FinishAcquire(), StatusIs(absl::StatusCode::kCancelled));
  grants_->OnGrant(Granted(sent->llm_grant_request().request_id(), "late"));
  std::optional<v1::ConnectRequest> release = link_.WaitForMessage(1);
  ASSERT_TRUE(release.has_value() && release->has_llm_call_report());
  const v1::LlmCallReport& report = release->llm_call_report();
  EXPECT_EQ(report.grant_id(), "late");
  EXPECT_EQ(report.task_id(), "scan");
  EXPECT_EQ(report.lease_id(), "l1");
  EXPECT_EQ(report.run_id(), "r1");
  EXPECT_EQ(report.model(), "gpt-4o");
  EXPECT_EQ(report.http_status(), 0);
  EXPECT_EQ(report.input_tokens(), 0);
  EXPECT_EQ(report.output_tokens(), 0);
  // A second grant for it (the request went out twice across a reconnect)
  // is handed back too.
  grants_->OnGrant(Granted(sent->llm_grant_request().request_id(), "late-2"));
  ASSERT_THAT(link_.sent(), SizeIs(3));
  EXPECT_EQ(link_.sent()[2].llm_call_report().grant_id(), "late-2");
}

TEST_F(LlmGrantsTest, DeadlinePassesWhileWaiting_DeadlineExceeded) {
  grants_->OnWelcome(true);
  StartAcquire(absl::Now() + absl::Milliseconds(100));
  EXPECT_THAT(FinishAcquire(), StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(link_.sent(), SizeIs(1));
}

// The scheduler forgot the request with the stream: it is asked again, under
// the same id, once the next stream is welcomed.
TEST_F(LlmGrantsTest, StreamLostWhileWaiting_SentAgainOnTheNextStreamWithTheSameId) {
  grants_->OnWelcome(true);
  StartAcquire();
  std::optional<v1::ConnectRequest> first = link_.WaitForMessage(0);
  ASSERT_TRUE(first.has_value());
  grants_->OnStreamLost();
  EXPECT_THAT(grants_->OnWelcome(true), IsEmpty());
  std::optional<v1::ConnectRequest> again = link_.WaitForMessage(1);
  ASSERT_TRUE(again.has_value() && again->has_llm_grant_request());
  EXPECT_EQ(again->llm_grant_request().request_id(), first->llm_grant_request().request_id());
  EXPECT_EQ(again->llm_grant_request().task_id(), "scan");
  grants_->OnGrant(Granted(again->llm_grant_request().request_id(), "g2"));
  EXPECT_THAT(FinishAcquire(), GrantIs("g2"));
}

// The next stream's scheduler is an older one: the waiting call goes ahead.
TEST_F(LlmGrantsTest, StreamLostAndTheNextSchedulerDoesNotGovern_Ungoverned) {
  grants_->OnWelcome(true);
  StartAcquire();
  ASSERT_TRUE(link_.WaitForMessage(0).has_value());
  grants_->OnStreamLost();
  grants_->OnWelcome(false);
  EXPECT_THAT(FinishAcquire(), GrantIs(""));
  EXPECT_THAT(link_.sent(), SizeIs(1));
}

// An unreachable scheduler never fails a model call.
TEST_F(LlmGrantsTest, StreamLostAndNoneBackInTime_GoesAheadUngoverned) {
  Recreate({.reconnect_wait = absl::Milliseconds(100)});
  grants_->OnWelcome(true);
  StartAcquire();
  ASSERT_TRUE(link_.WaitForMessage(0).has_value());
  grants_->OnStreamLost();
  EXPECT_THAT(FinishAcquire(), GrantIs(""));
}

TEST_F(LlmGrantsTest, NoStreamYet_AsksOnceTheWelcomeCame) {
  StartAcquire();
  grants_->OnWelcome(true);
  std::optional<v1::ConnectRequest> sent = link_.WaitForMessage(0);
  ASSERT_TRUE(sent.has_value());
  grants_->OnGrant(Granted(sent->llm_grant_request().request_id(), "g1"));
  EXPECT_THAT(FinishAcquire(), GrantIs("g1"));
}

TEST_F(LlmGrantsTest, CancelledWhileWaitingForAStream_Cancelled) {
  StartAcquire();
  cancel_.Cancel("run cancelled");
  EXPECT_THAT(FinishAcquire(), StatusIs(absl::StatusCode::kCancelled));
  EXPECT_THAT(link_.sent(), IsEmpty());
}

// The session's stream ended between the Welcome LlmGrants saw and the send:
// the request waits for the next stream.
TEST_F(LlmGrantsTest, SendFails_AskedAgainOnTheNextStream) {
  grants_->OnWelcome(true);
  link_.Disconnect();
  StartAcquire();
  grants_->OnStreamLost();
  link_.Reconnect();
  grants_->OnWelcome(true);
  std::optional<v1::ConnectRequest> sent = link_.WaitForMessage(0);
  ASSERT_TRUE(sent.has_value());
  grants_->OnGrant(Granted(sent->llm_grant_request().request_id(), "g1"));
  EXPECT_THAT(FinishAcquire(), GrantIs("g1"));
}

TEST_F(LlmGrantsTest, Report_CarriesEveryField) {
  grants_->OnWelcome(true);
  grants_->Report(Task(), "grant-7", Plan(),
                  {.http_status = 429,
                   .retry_after = absl::Seconds(3),
                   .input_tokens = 1100,
                   .output_tokens = 350,
                   .cached_tokens = 1024});
  ASSERT_THAT(link_.sent(), SizeIs(1));
  ASSERT_TRUE(link_.sent()[0].has_llm_call_report());
  const v1::LlmCallReport report = link_.sent()[0].llm_call_report();
  EXPECT_EQ(report.grant_id(), "grant-7");
  EXPECT_EQ(report.task_id(), "scan");
  EXPECT_EQ(report.lease_id(), "l1");
  EXPECT_EQ(report.run_id(), "r1");
  EXPECT_EQ(report.model(), "gpt-4o");
  EXPECT_EQ(report.http_status(), 429);
  EXPECT_EQ(report.retry_after_ms(), 3000);
  EXPECT_EQ(report.input_tokens(), 1100);
  EXPECT_EQ(report.output_tokens(), 350);
  EXPECT_EQ(report.cached_tokens(), 1024);
}

// A call that went ahead while the scheduler was unreachable (grant id "")
// is still billed by a governing scheduler.
TEST_F(LlmGrantsTest, ReportWithoutAGrantId_SentWhenTheSchedulerGoverns) {
  grants_->OnWelcome(true);
  grants_->Report(Task(), "", Plan(), {.http_status = 200, .input_tokens = 9});
  ASSERT_THAT(link_.sent(), SizeIs(1));
  EXPECT_EQ(link_.sent()[0].llm_call_report().grant_id(), "");
  EXPECT_EQ(link_.sent()[0].llm_call_report().input_tokens(), 9);
}

TEST_F(LlmGrantsTest, ReportWithoutAStream_KeptForTheNextGoverningWelcome) {
  grants_->OnWelcome(true);
  grants_->OnStreamLost();
  grants_->Report(Task(), "g1", Plan(), {.http_status = 200, .output_tokens = 4});
  EXPECT_THAT(link_.sent(), IsEmpty());
  const std::vector<v1::ConnectRequest> kept = grants_->OnWelcome(true);
  ASSERT_THAT(kept, SizeIs(1));
  EXPECT_EQ(kept[0].llm_call_report().grant_id(), "g1");
  EXPECT_EQ(kept[0].llm_call_report().output_tokens(), 4);
  grants_->OnStreamLost();
  EXPECT_THAT(grants_->OnWelcome(true), IsEmpty()) << "sent once";
}

TEST_F(LlmGrantsTest, ReportWithoutAStream_DroppedWhenTheNextSchedulerDoesNotGovern) {
  grants_->Report(Task(), "", Plan(), {.http_status = 200});
  EXPECT_THAT(grants_->OnWelcome(false), IsEmpty());
  grants_->OnStreamLost();
  EXPECT_THAT(grants_->OnWelcome(true), IsEmpty());
}

// A request sent twice across a reconnect can be granted twice; the grant
// nobody waits for goes back as a call not made, so it holds no place.
TEST_F(LlmGrantsTest, GrantForAnUnknownRequest_HandedBackAsACallNotMade) {
  grants_->OnWelcome(true);
  grants_->OnGrant(Granted("nobody", "g0"));
  ASSERT_THAT(link_.sent(), SizeIs(1));
  EXPECT_EQ(link_.sent()[0].llm_call_report().grant_id(), "g0");
  EXPECT_EQ(link_.sent()[0].llm_call_report().http_status(), 0);
  // A refusal for nobody needs nothing back.
  v1::LlmGrant refused;
  refused.set_request_id("nobody-else");
  grants_->OnGrant(refused);
  EXPECT_THAT(link_.sent(), SizeIs(1));
}

}  // namespace
}  // namespace taskboard::worker
