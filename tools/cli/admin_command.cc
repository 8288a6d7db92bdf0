#include "tools/cli/admin_command.h"

#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/files.h"
#include "common/json.h"
#include "scheduler/ha/checkpoint_receiver.h"
#include "scheduler/ha/replication.grpc.pb.h"
#include "tools/cli/ha_status_command.h"
#include "tools/cli/rpc_errors.h"
#include "tools/cli/scheduler_client.h"

namespace taskboard::cli {
namespace {

namespace fs = std::filesystem;
namespace hav1 = ha::v1;

constexpr absl::string_view kBackupCommand = "taskboard admin backup";
// Progress lines on stderr at most this often, for a store of gigabytes.
constexpr uint64_t kProgressBytes = 256ull << 20;

std::string Mib(uint64_t bytes) { return absl::StrFormat("%.1f MiB", bytes / 1048576.0); }

// What BACKUP.json records: enough to tell backups apart and to check each
// file by hand (sha256sum) before trusting a restore to it.
Json Describe(const std::string& scheduler, const hav1::CheckpointManifest& manifest,
              const std::vector<Json>& files) {
  return Json{{"format", "taskboard-backup/1"},
              {"created", absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone())},
              {"scheduler", scheduler},
              {"position",
               {{"epoch", manifest.position().epoch()}, {"index", manifest.position().index()}}},
              {"files", files}};
}

}  // namespace

int RunBackup(const BackupOptions& options, std::ostream& out, std::ostream& err) {
  std::error_code error;
  if (fs::exists(options.dest, error) || fs::is_symlink(options.dest, error)) {
    err << kBackupCommand << ": " << options.dest
        << " already exists; a backup never overwrites anything: name a new directory\n";
    return 1;
  }
  const absl::Time start = absl::Now();
  SchedulerClient client(options.scheduler);
  hav1::Backup::Stub stub(client.channel());
  std::unique_ptr<grpc::ClientContext> context = client.StreamContext();
  std::unique_ptr<grpc::ClientReader<hav1::CheckpointChunk>> reader =
      stub.Backup(context.get(), hav1::BackupRequest());

  ha::CheckpointReceiver receiver(options.dest);
  hav1::CheckpointManifest manifest;
  std::vector<Json> files;
  uint64_t total = 0;
  uint64_t received = 0;
  uint64_t next_progress = kProgressBytes;
  absl::Status failed;
  hav1::CheckpointChunk chunk;
  while (failed.ok() && reader->Read(&chunk)) {
    switch (chunk.kind_case()) {
      case hav1::CheckpointChunk::kManifest: {
        manifest = chunk.manifest();
        std::vector<ha::CheckpointInfo::File> listed;
        for (const hav1::CheckpointFile& file : manifest.files()) {
          listed.push_back({file.name(), file.size()});
          total += file.size();
        }
        err << "backing up " << listed.size() << " files, " << Mib(total) << ", from "
            << client.address() << " into " << options.dest << "\n";
        failed = receiver.Begin(
            ha::LogPosition{manifest.position().epoch(), manifest.position().index()},
            std::move(listed));
        break;
      }
      case hav1::CheckpointChunk::kData:
        failed = receiver.Write(chunk.data().name(), chunk.data().offset(), chunk.data().data());
        received += chunk.data().data().size();
        if (received >= next_progress) {
          err << "  " << Mib(received) << " of " << Mib(total) << "\n";
          next_progress = received + kProgressBytes;
        }
        break;
      case hav1::CheckpointChunk::kEnd:
        failed = receiver.End(chunk.end().name(), chunk.end().size(), chunk.end().sha256());
        files.push_back(Json{{"name", chunk.end().name()},
                             {"size", chunk.end().size()},
                             {"sha256", chunk.end().sha256()}});
        break;
      case hav1::CheckpointChunk::KIND_NOT_SET:
        failed = absl::DataLossError("the scheduler sent an empty backup message");
        break;
    }
  }
  if (!failed.ok()) context->TryCancel();
  const grpc::Status status = reader->Finish();
  auto give_up = [&](int code) {
    fs::remove_all(receiver.incoming_dir(), error);
    return code;
  };
  if (!failed.ok()) {
    err << kBackupCommand << ": " << failed.message() << "; nothing was written to " << options.dest
        << " (try again)\n";
    return give_up(1);
  }
  if (!status.ok()) return give_up(ReportRpcError(kBackupCommand, client.address(), status, err));
  // Installed with the files: the receiver syncs the directory.
  const std::string described = absl::StrCat(receiver.incoming_dir(), "/BACKUP.json");
  if (!WriteFileDurably(described, Describe(client.address(), manifest, files).dump(2) + "\n")) {
    err << kBackupCommand << ": cannot write " << described << "\n";
    return give_up(1);
  }
  absl::StatusOr<ha::LogPosition> installed = receiver.Install();
  if (!installed.ok()) {
    err << kBackupCommand << ": " << installed.status().message() << "\n";
    return give_up(1);
  }
  out << "backed up " << files.size() << " files (" << Mib(total) << ") into " << options.dest
      << " in " << absl::FormatDuration(absl::Trunc(absl::Now() - start, absl::Milliseconds(1)))
      << "; restore: docs/operations.md#backup-and-restore\n";
  return 0;
}

void AddAdminCommand(CLI::App& app, CommandSet& commands) {
  CLI::App* admin = app.add_subcommand("admin", "Operator commands (an admin token)");
  admin->require_subcommand(1);
  auto options = std::make_shared<BackupOptions>();
  CLI::App* backup = admin->add_subcommand(
      "backup",
      "Copy the scheduler's store, consistent as of now, into a new directory while it serves");
  backup->add_option("DEST", options->dest, "The new directory (must not exist)")->required();
  AddSchedulerOption(backup, &options->scheduler);
  commands.Add(backup, [options](std::ostream& out, std::ostream& err) {
    return RunBackup(*options, out, err);
  });
  AddHaCommand(*admin, commands);
}

}  // namespace taskboard::cli
