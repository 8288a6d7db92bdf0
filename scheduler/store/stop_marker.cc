#include "scheduler/store/stop_marker.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"

namespace taskboard::store {
namespace {

constexpr char kOpenFile[] = "taskboard-open";
constexpr char kCleanStopFile[] = "taskboard-clean-stop";

std::string DurabilityName(Durability durability) {
  switch (durability) {
    case Durability::kSync:
      return "sync";
    case Durability::kWal:
      return "wal";
    case Durability::kNone:
      return "none";
  }
  return "sync";
}

}  // namespace

std::string CurrentBootId() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return std::string(absl::StripAsciiWhitespace(id));
}

absl::StatusOr<bool> BeginOpen(const std::string& dir, const std::string& boot_id,
                               Durability durability) {
  const std::filesystem::path root(dir);
  std::error_code ec;
  // A directory RocksDB never wrote holds nothing to lose.
  const bool had_data = std::filesystem::exists(root / "CURRENT", ec);
  const bool clean = std::filesystem::exists(root / kCleanStopFile, ec);
  std::string last_boot, last_durability;
  {
    std::ifstream in(root / kOpenFile);
    in >> last_boot >> last_durability;
  }
  bool may_have_lost = false;
  if (had_data && !clean) {
    if (last_boot == "lost") {
      may_have_lost = true;  // the last recovery did not finish making up for it
    } else if (last_durability == "none") {
      may_have_lost = true;
    } else if (last_durability == "wal") {
      may_have_lost = last_boot.empty() || boot_id.empty() || last_boot != boot_id;
    }
    // "sync", or written by a version before this file (it ran sync by
    // default): nothing acknowledged was lost.
  }
  std::filesystem::create_directories(root, ec);
  std::filesystem::remove(root / kCleanStopFile, ec);
  const std::string recorded = may_have_lost ? "lost" : (boot_id.empty() ? "-" : boot_id);
  if (!WriteFileDurably((root / kOpenFile).string(),
                        absl::StrCat(recorded, " ", DurabilityName(durability), "\n"), 0600)) {
    return absl::InternalError(absl::StrCat("cannot open the store at ", dir, ": cannot write ",
                                            (root / kOpenFile).string(),
                                            ": check that the data directory is writable"));
  }
  return may_have_lost;
}

absl::Status ConfirmRecovered(const std::string& dir, const std::string& boot_id,
                              Durability durability) {
  const std::filesystem::path file = std::filesystem::path(dir) / kOpenFile;
  if (!WriteFileDurably(file.string(),
                        absl::StrCat(boot_id.empty() ? "-" : boot_id, " ",
                                     DurabilityName(durability), "\n"),
                        0600)) {
    return absl::InternalError(absl::StrCat("cannot write ", file.string()));
  }
  return absl::OkStatus();
}

void RecordCleanStop(const std::string& dir) {
  WriteFileDurably((std::filesystem::path(dir) / kCleanStopFile).string(), "clean\n", 0600);
}

}  // namespace taskboard::store
