// Recovery never depends on one run: a run whose stored records no longer
// decode is failed on its own ("unrecoverable: ...") when the scheduler
// starts, and every other run goes on to complete.

#include <string>

#include "absl/strings/str_cat.h"
#include "common/child_process.h"
#include "common/files.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/store/keys.h"
#include "scheduler/store/rocksdb_store.h"
#include "tests/testing/cluster_test.h"
#include "tests/testing/status_matchers.h"

namespace taskboard {
namespace {

using testing::ClusterOptions;
using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::IsOk;

constexpr char kFlow[] = "name: steady\nphases:\n  - id: a\n    agent: echo\n    task: echo ok\n";

ClusterOptions NoWorkerAtFirst() {
  ClusterOptions options;
  options.workers = 1;
  // Runs wait for the worker across the restart instead of failing.
  options.scheduling_timeout_ms = 300'000;
  return options;
}

class RecoveryQuarantineTest : public testing::ClusterTest {
 protected:
  RecoveryQuarantineTest() : ClusterTest(NoWorkerAtFirst()) {}

  // Writes `value` under `key` of `column` straight into the stopped
  // scheduler's RocksDB, as a bad disk or an old bug would have.
  void Corrupt(store::Column column, const std::string& key, const std::string& value) {
    store::RocksDbStoreOptions options;
    options.path = (cluster_.dir() / "data").string();
    absl::StatusOr<std::unique_ptr<store::Store>> db = store::OpenRocksDbStore(options);
    ASSERT_THAT(db.status(), IsOk());
    store::WriteBatch batch;
    batch.Put(column, key, value);
    ASSERT_THAT((*db)->Write(batch), IsOk());
  }
};

TEST_F(RecoveryQuarantineTest, CorruptRecords_QuarantineTheirRunsAndTheOthersComplete) {
  cluster_.KillWorker(0);
  absl::StatusOr<std::string> good = cluster_.Submit(kFlow);
  absl::StatusOr<std::string> bad_record = cluster_.Submit(kFlow);
  absl::StatusOr<std::string> bad_spec = cluster_.Submit(kFlow);
  absl::StatusOr<std::string> bad_task = cluster_.Submit(kFlow);
  ASSERT_THAT(good.status(), IsOk());
  ASSERT_THAT(bad_record.status(), IsOk());
  ASSERT_THAT(bad_spec.status(), IsOk());
  ASSERT_THAT(bad_task.status(), IsOk());
  // Every run is stored with its task ready, waiting for a worker.
  for (const std::string& run_id : {*good, *bad_record, *bad_spec, *bad_task}) {
    ASSERT_THAT(cluster_.WaitUntil(run_id, [](const v1::Run& run) { return run.tasks_size() > 0; })
                    .status(),
                IsOk());
  }
  cluster_.KillScheduler(SIGKILL);

  const std::string garbage = "\xff\xff\xff\xff not a protobuf";
  Corrupt(store::Column::kRuns, store::keys::Run(*bad_record), garbage);
  Corrupt(store::Column::kMeta, store::keys::RunSpec(*bad_spec), garbage);
  Corrupt(store::Column::kTasks, store::keys::Task(*bad_task, "a"), garbage);

  ASSERT_THAT(cluster_.StartScheduler(), IsOk());
  ASSERT_THAT(cluster_.StartWorker(0), IsOk());

  absl::StatusOr<v1::Run> run = cluster_.WaitForRun(*good);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_COMPLETED) << run->error();

  run = cluster_.WaitForRun(*bad_record);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run->error(), HasSubstr("unrecoverable: its run record does not decode"));

  run = cluster_.WaitForRun(*bad_spec);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run->error(), HasSubstr("unrecoverable: "));
  EXPECT_THAT(run->error(), HasSubstr("flow spec"));

  run = cluster_.WaitForRun(*bad_task);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_EQ(run->status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(run->error(), HasSubstr("unrecoverable: "));
  EXPECT_THAT(run->error(), HasSubstr("task 'a' does not decode"));

  // `taskboard show` tells the run's owner why it failed.
  const std::string shown = (cluster_.dir() / "show.log").string();
  absl::StatusOr<std::unique_ptr<ChildProcess>> show = ChildProcess::Spawn(
      {testing::BinaryPath("taskboard"), "show", *bad_task, "--scheduler", cluster_.address()},
      shown);
  ASSERT_THAT(show.status(), IsOk());
  EXPECT_EQ((*show)->WaitFor(30'000), 0) << ReadFileOrEmpty(shown);
  EXPECT_THAT(ReadFileOrEmpty(shown),
              AllOf(HasSubstr("failed"), HasSubstr("unrecoverable: "),
                    HasSubstr("task 'a' does not decode")));

  // The quarantine is in the run's event log after what was already there,
  // numbered without a gap or a repeat.
  absl::StatusOr<std::vector<v1::RunEvent>> events = cluster_.WatchToEnd(*bad_spec);
  ASSERT_THAT(events.status(), IsOk());
  ASSERT_FALSE(events->empty());
  for (size_t i = 0; i < events->size(); ++i) EXPECT_EQ((*events)[i].seq(), int64_t(i + 1));
  ASSERT_TRUE(events->back().has_run_finished());
  EXPECT_THAT(events->back().run_finished().error(), HasSubstr("unrecoverable: "));

  // A second restart finds nothing left to quarantine and changes nothing.
  cluster_.KillScheduler(SIGKILL);
  ASSERT_THAT(cluster_.StartScheduler(), IsOk());
  run = cluster_.WaitForRun(*bad_record);
  ASSERT_THAT(run.status(), IsOk());
  EXPECT_THAT(run->error(), HasSubstr("unrecoverable: its run record does not decode"));
  EXPECT_THAT(cluster_.WaitForRun(*good)->status(), v1::RUN_STATUS_COMPLETED);
}

}  // namespace
}  // namespace taskboard
