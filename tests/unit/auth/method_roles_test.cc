#include "scheduler/auth/method_roles.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "gtest/gtest.h"
#include "taskboard/v1/scheduler.grpc.pb.h"
#include "taskboard/v1/worker.grpc.pb.h"

namespace taskboard::auth {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

// Every method the scheduler serves must have a rule: a method added to the
// protos without one would be refused to everybody.
TEST(MethodRolesTest, EveryServedMethod_HasARule) {
  // Through a message of each file: that loads the file's descriptors.
  for (const google::protobuf::ServiceDescriptor* service :
       {v1::SubmitRunRequest::descriptor()->file()->FindServiceByName("Scheduler"),
        v1::ConnectRequest::descriptor()->file()->FindServiceByName("WorkerGateway")}) {
    ASSERT_NE(service, nullptr);
    for (int i = 0; i < service->method_count(); ++i) {
      const std::string method =
          absl::StrCat("/", service->full_name(), "/", service->method(i)->name());
      EXPECT_THAT(RolesFor(method), Not(IsEmpty())) << method;
    }
  }
}

TEST(MethodRolesTest, Table) {
  EXPECT_THAT(RolesFor("/taskboard.v1.Scheduler/GetRun"), ElementsAre(Role::kClient, Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.v1.Scheduler/DrainWorker"), ElementsAre(Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.v1.Scheduler/DecideApproval"),
              ElementsAre(Role::kClient, Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.v1.Scheduler/GetCacheStats"),
              ElementsAre(Role::kClient, Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.v1.WorkerGateway/Connect"),
              ElementsAre(Role::kWorker, Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.v1.WorkerGateway/RunState"),
              ElementsAre(Role::kWorker, Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.v1.Scheduler/Unknown"), IsEmpty());
  // A backup holds every tenant's state: operators only.
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.Backup/Backup"), ElementsAre(Role::kAdmin));
  // So does a follower's replication stream and checkpoint.
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.ReplicaService/Follow"), ElementsAre(Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.ReplicaService/FetchCheckpoint"),
              ElementsAre(Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.ReplicaService/Unknown"), IsEmpty());
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.ReplicaAdmin/Switchover"), ElementsAre(Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.ReplicaAdmin/PromoteReplica"), ElementsAre(Role::kAdmin));
  EXPECT_THAT(RolesFor("/taskboard.ha.v1.ReplicaAdmin/GetReplicaStatus"),
              ElementsAre(Role::kAdmin));
}

TEST(MethodRolesTest, UnlistedMethod_PermissionDeniedForEveryone) {
  Principal admin{.name = "ops", .role = Role::kAdmin};
  EXPECT_EQ(CheckRole(admin, "/taskboard.v1.Scheduler/Unknown").code(),
            absl::StatusCode::kPermissionDenied);
}

}  // namespace
}  // namespace taskboard::auth
