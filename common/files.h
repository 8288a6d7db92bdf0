#ifndef TASKBOARD_COMMON_FILES_H_
#define TASKBOARD_COMMON_FILES_H_

// Small whole-file helpers for the files processes hand each other (port
// files, ready files, logs) and the small files a store or a backup keeps
// beside its data.

#include <string>

namespace taskboard {

// The whole file, or "" when it is missing or unreadable.
std::string ReadFileOrEmpty(const std::string& path);

// Writes `text` to a temporary file next to `path` and renames it over
// `path`, so a reader polling for the file never sees it half-written.
// `mode` before the umask: 0600 for a secret only its owner may read.
bool WriteFileAtomically(const std::string& path, const std::string& text, int mode = 0666);

// Writes `text` to `path` (created with `mode` before the umask, or
// truncated) and fsyncs the file and its directory, so that it survives the
// machine stopping right after. False when the file could not be written or
// synced.
bool WriteFileDurably(const std::string& path, const std::string& text, int mode = 0666);

}  // namespace taskboard

#endif  // TASKBOARD_COMMON_FILES_H_
