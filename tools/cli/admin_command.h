#ifndef TASKBOARD_TOOLS_CLI_ADMIN_COMMAND_H_
#define TASKBOARD_TOOLS_CLI_ADMIN_COMMAND_H_

// `taskboard admin backup DEST`: a consistent copy of the scheduler's store,
// taken while it serves (the Backup service, scheduler/server/backup_service.h).
// The files arrive with their sizes and SHA-256s, are checked and fsynced in
// `DEST.incoming`, and DEST appears only when every file is whole, holding
// the store's files and BACKUP.json (when, from where, each file's size and
// SHA-256). DEST opens as a scheduler's --data-dir
// (docs/operations.md#backup-and-restore).

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command_set.h"

namespace taskboard::cli {

struct BackupOptions {
  std::string dest;
  std::string scheduler;
};

// Exit codes: 0 backed up; 1 refused (DEST exists, not an admin token, a
// scheduler in memory, a backup already running) or a file did not check
// out; 2 no scheduler.
int RunBackup(const BackupOptions& options, std::ostream& out, std::ostream& err);

void AddAdminCommand(CLI::App& app, CommandSet& commands);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_ADMIN_COMMAND_H_
