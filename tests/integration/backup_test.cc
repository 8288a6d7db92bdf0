// `taskboard admin backup DEST` against real processes
// (docs/operations.md#backup-and-restore): a backup taken while the
// scheduler serves opens as another scheduler's data directory with every
// run in it; BACKUP.json's checksums match the files; an existing DEST, a
// scheduler in memory and a token without the admin role are refused with
// nothing written.

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/sha256.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/cluster.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/temp_dir.h"

namespace taskboard {
namespace {

namespace fs = std::filesystem;
using testing::Cluster;
using testing::ClusterOptions;
using testing::Exited;
using testing::IsOk;
using testing::RunToExit;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kQuickFlow[] = R"(
name: quick
args:
  n: {}
phases:
  - id: hello
    agent: echo
    task: "backed up {args.n}"
)";

constexpr char kSlowFlow[] = R"(
name: slow
phases:
  - id: wait
    agent: echo
    task: "sleep 30 still running at the backup"
)";

Exited Backup(const std::string& address, const fs::path& dest,
              std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"admin", "backup", dest.string(), "--scheduler", address};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunToExit("taskboard", args);
}

TEST(BackupTest, TakenWhileServing_OpensAsAnotherSchedulersStoreWithEveryRun) {
  Cluster cluster;
  ASSERT_THAT(cluster.Start(), IsOk());
  std::vector<std::string> finished;
  for (int n = 0; n < 3; ++n) {
    absl::StatusOr<std::string> run_id =
        cluster.Submit(kQuickFlow, Json{{"n", n}});
    ASSERT_THAT(run_id.status(), IsOk());
    ASSERT_THAT(cluster.WaitForRun(*run_id).status(), IsOk());
    finished.push_back(*run_id);
  }
  absl::StatusOr<std::string> running = cluster.Submit(kSlowFlow);
  ASSERT_THAT(running.status(), IsOk());
  ASSERT_THAT(cluster
                  .WaitUntil(*running,
                             [](const v1::Run& run) {
                               return run.tasks_size() == 1 &&
                                      run.tasks(0).state() == v1::TASK_STATE_RUNNING;
                             })
                  .status(),
              IsOk());

  testing::TempDir backups;
  const fs::path dest = backups.path() / "nightly";
  const Exited backed_up = Backup(cluster.address(), dest);
  ASSERT_EQ(backed_up.code, 0) << backed_up.output;
  EXPECT_THAT(backed_up.output, HasSubstr(absl::StrCat("into ", dest.string())));
  EXPECT_FALSE(fs::exists(dest.string() + ".incoming"));

  // Every file BACKUP.json lists is there, whole.
  std::optional<Json> manifest = TryParseJson(ReadFileOrEmpty((dest / "BACKUP.json").string()));
  ASSERT_TRUE(manifest.has_value());
  EXPECT_EQ((*manifest)["format"], "taskboard-backup/1");
  ASSERT_FALSE((*manifest)["files"].empty());
  for (const Json& file : (*manifest)["files"]) {
    const std::string bytes = ReadFileOrEmpty((dest / file["name"].get<std::string>()).string());
    EXPECT_EQ(bytes.size(), file["size"].get<uint64_t>()) << file.dump();
    EXPECT_EQ(Sha256Hex(bytes), file["sha256"].get<std::string>()) << file.dump();
  }

  // The serving scheduler went on as if nothing happened.
  absl::StatusOr<std::string> after = cluster.Submit(kQuickFlow, Json{{"n", 9}});
  ASSERT_THAT(after.status(), IsOk());
  ASSERT_THAT(cluster.WaitForRun(*after).status(), IsOk());

  // Restore: the backup as a second scheduler's data directory.
  ClusterOptions restored_options;
  restored_options.workers = 0;
  Cluster restored(restored_options);
  fs::copy(dest, restored.dir() / "data", fs::copy_options::recursive);
  ASSERT_THAT(restored.StartScheduler(), IsOk());
  for (int n = 0; n < 3; ++n) {
    absl::StatusOr<v1::Run> run = restored.GetRun(finished[n]);
    ASSERT_THAT(run.status(), IsOk()) << restored.Logs();
    EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED);
    EXPECT_EQ(run->output(), absl::StrCat("backed up ", n, "\n"));
  }
  absl::StatusOr<v1::Run> was_running = restored.GetRun(*running);
  ASSERT_THAT(was_running.status(), IsOk());
  EXPECT_EQ(was_running->status(), v1::RUN_STATUS_RUNNING);
  // Taken before it was submitted.
  EXPECT_THAT(restored.GetRun(*after).status(), Not(IsOk()));
}

// With --durability none the latest writes are only in memory (no WAL):
// the checkpoint flushes them first.
TEST(BackupTest, DurabilityNone_HoldsWritesNotYetFlushed) {
  ClusterOptions options;
  options.workers = 1;
  options.durability = "none";
  Cluster cluster(options);
  ASSERT_THAT(cluster.Start(), IsOk());
  absl::StatusOr<std::string> run_id = cluster.Submit(kQuickFlow, Json{{"n", 7}});
  ASSERT_THAT(run_id.status(), IsOk());
  ASSERT_THAT(cluster.WaitForRun(*run_id).status(), IsOk());

  testing::TempDir backups;
  const Exited backed_up = Backup(cluster.address(), backups.path() / "b");
  ASSERT_EQ(backed_up.code, 0) << backed_up.output;
  ClusterOptions restored_options;
  restored_options.workers = 0;
  Cluster restored(restored_options);
  fs::copy(backups.path() / "b", restored.dir() / "data", fs::copy_options::recursive);
  ASSERT_THAT(restored.StartScheduler(), IsOk());
  absl::StatusOr<v1::Run> run = restored.GetRun(*run_id);
  ASSERT_THAT(run.status(), IsOk()) << restored.Logs();
  EXPECT_EQ(run->output(), "backed up 7\n");
}

TEST(BackupTest, DestinationExists_RefusedAndLeftAlone) {
  Cluster cluster(ClusterOptions{.workers = 0});
  ASSERT_THAT(cluster.Start(), IsOk());
  testing::TempDir backups;
  const fs::path dest = backups.path() / "taken";
  fs::create_directories(dest);
  std::ofstream(dest / "keep.txt") << "mine";

  const Exited refused = Backup(cluster.address(), dest);
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("already exists; a backup never overwrites anything"));
  EXPECT_EQ(ReadFileOrEmpty((dest / "keep.txt").string()), "mine");
  EXPECT_FALSE(fs::exists(dest.string() + ".incoming"));
}

TEST(BackupTest, SchedulerInMemory_RefusedSayingWhy) {
  Cluster cluster(ClusterOptions{.workers = 0, .scheduler_flags = {"--memory"}});
  ASSERT_THAT(cluster.Start(), IsOk());
  testing::TempDir backups;
  const Exited refused = Backup(cluster.address(), backups.path() / "none");
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("--memory"));
  EXPECT_THAT(refused.output, HasSubstr("--data-dir"));
  EXPECT_FALSE(fs::exists(backups.path() / "none"));
  EXPECT_FALSE(fs::exists(backups.path() / "none.incoming"));
}

TEST(BackupTest, ClientToken_NeedsTheAdminRole) {
  testing::TempDir dir;
  const std::string tokens = (dir.path() / "tokens.yaml").string();
  std::ofstream(tokens) << "tokens:\n"
                           "  - {token: client-token-0123456789, name: alice, role: client, "
                           "tenant: acme}\n"
                           "  - {token: admin-token-0123456789, name: ops, role: admin}\n";
  Cluster cluster(ClusterOptions{.workers = 0,
                                 .scheduler_flags = {"--auth-tokens", tokens},
                                 .client_token = "admin-token-0123456789"});
  ASSERT_THAT(cluster.Start(), IsOk());

  const Exited refused =
      Backup(cluster.address(), dir.path() / "by-alice", {"--token", "client-token-0123456789"});
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_THAT(refused.output, HasSubstr("needs role admin"));
  EXPECT_FALSE(fs::exists(dir.path() / "by-alice"));

  const Exited taken =
      Backup(cluster.address(), dir.path() / "by-ops", {"--token", "admin-token-0123456789"});
  EXPECT_EQ(taken.code, 0) << taken.output;
  EXPECT_TRUE(fs::exists(dir.path() / "by-ops" / "BACKUP.json"));
}

}  // namespace
}  // namespace taskboard
