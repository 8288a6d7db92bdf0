// The worker session against replicated schedulers
// (docs/operations.md#clients-and-replicated-schedulers): a replica that
// does not lead answers Connect UNAVAILABLE with the `taskboard-leader`
// trailer, and the worker connects to the leader at once, with no backoff;
// an address that cannot be reached is skipped; running tasks re-attach on
// the new leader through Hello.held_tasks. Real gRPC on loopback ports.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "taskboard/v1/worker.grpc.pb.h"
#include "tests/unit/worker/session/fake_gateway.h"
#include "tests/unit/worker/session/session_harness.h"
#include "worker/session/session.h"

namespace taskboard::worker {
namespace {

using ::taskboard::worker::testing::FakeGateway;
using ::taskboard::worker::testing::FakeStream;
using ::taskboard::worker::testing::SessionHarness;

// A replica that does not lead: every Connect is answered at once as the
// scheduler's follower answers it.
class FollowerGateway final : public v1::WorkerGateway::Service {
 public:
  explicit FollowerGateway(std::string leader) : leader_(std::move(leader)) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~FollowerGateway() override {
    server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
  }

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  int calls() const {
    absl::MutexLock lock(&mu_);
    return calls_;
  }

  grpc::Status Connect(grpc::ServerContext* context, FakeStream::ServerStream*) override {
    absl::MutexLock lock(&mu_);
    ++calls_;
    context->AddTrailingMetadata("taskboard-leader", leader_);
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        absl::StrCat("not the leader; the leader is at ", leader_, " (epoch 3)"));
  }

 private:
  const std::string leader_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  mutable absl::Mutex mu_;
  int calls_ ABSL_GUARDED_BY(mu_) = 0;
};

// A loopback port nothing listens on: bound, read back and closed.
std::string ClosedAddress() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length), 0);
  close(fd);
  return absl::StrCat("127.0.0.1:", ntohs(addr.sin_port));
}

class SessionFailoverTest : public SessionHarness {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() / "sleeper.yaml")
        << "command: [/bin/sh, -c, 'echo started; exec sleep 100']\n";
    ASSERT_NO_FATAL_FAILURE(LoadAgents({.kill_grace = absl::Milliseconds(200)}));
  }

  // `backoff` long enough that a test waiting on the next connection (10 s)
  // sees it only if no backoff was taken: attempts, not timing.
  void StartAt(const std::string& scheduler, absl::Duration backoff) {
    SessionOptions options;
    options.slots = 2;
    options.version = "test";
    options.backoff = {.base = backoff, .cap = backoff};
    StartSessionAt(options, scheduler);
  }
};

TEST_F(SessionFailoverTest, NotLeader_ConnectsToTheNamedLeaderWithoutBackoff) {
  FollowerGateway follower(gateway_.address());
  StartAt(absl::StrCat(follower.address(), ",", gateway_.address()), absl::Hours(1));
  ASSERT_NE(Welcome(0), nullptr) << "the worker waited before following the redirect";
  EXPECT_EQ(follower.calls(), 1);
}

TEST_F(SessionFailoverTest, NotLeader_LeaderMissingFromTheList_IsFollowed) {
  FollowerGateway follower(gateway_.address());
  StartAt(follower.address(), absl::Hours(1));
  ASSERT_NE(Welcome(0), nullptr);
  EXPECT_EQ(follower.calls(), 1);
}

TEST_F(SessionFailoverTest, DeadFirstAddress_IsSkipped) {
  StartAt(absl::StrCat(ClosedAddress(), ",", gateway_.address()), absl::Milliseconds(10));
  ASSERT_NE(Welcome(0), nullptr);
}

// The leader dies with a task running; the next replica names the new
// leader, where the worker re-attaches the task's lease in its Hello.
TEST_F(SessionFailoverTest, LeaderDies_RunningTaskReattachesOnTheNewLeader) {
  FakeGateway old_leader;
  FollowerGateway follower(gateway_.address());
  StartAt(absl::StrCat(old_leader.address(), ",", follower.address(), ",", gateway_.address()),
          absl::Milliseconds(10));
  FakeStream* first = old_leader.WaitForStream(0);
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->Next().has_value());  // Hello
  v1::ConnectResponse welcome;
  welcome.mutable_welcome()->set_scheduler_id("s1");
  first->Send(welcome);
  first->Send(Assign("sleeper", "l1"));
  Expect(first, v1::ConnectRequest::kTaskStarted);
  old_leader.EndAll(grpc::Status(grpc::StatusCode::UNAVAILABLE, "leader killed"));

  v1::Hello hello;
  FakeStream* second = Welcome(0, {}, &hello);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(follower.calls(), 1);
  ASSERT_EQ(hello.held_tasks_size(), 1);
  EXPECT_EQ(hello.held_tasks(0).lease_id(), "l1");
  EXPECT_EQ(hello.incarnation(), session_->incarnation());
}

TEST_F(SessionFailoverTest, EmptyAddressInTheList_RunFailsAtOnce) {
  SessionOptions options;
  options.scheduler_address = "a:1,,b:2";
  Session session(options, *agents_);
  const absl::Status status = session.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("address 2 is empty"));
}

}  // namespace
}  // namespace taskboard::worker
