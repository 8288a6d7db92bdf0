#include "worker/base/secret_environment.h"

#include <sys/prctl.h>

#include <cstdlib>
#include <cstring>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

extern char** environ;

namespace taskboard::worker {
namespace {

struct Store {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::string> secrets ABSL_GUARDED_BY(mu);
};

Store& TheStore() {
  static Store* const store = new Store();  // never destroyed: used until exit
  return *store;
}

// Zeroes the value bytes of every `name=` entry in environ. Entries from the
// start-up block are the bytes /proc/<pid>/environ shows; entries setenv
// made live on the heap, and zeroing them is harmless.
void ZeroValueInPlace(const std::string& name) {
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    char* text = *entry;
    if (std::strncmp(text, name.c_str(), name.size()) != 0 || text[name.size()] != '=') continue;
    char* value = text + name.size() + 1;
    std::memset(value, 0, std::strlen(value));
  }
}

}  // namespace

void TakeSecretFromEnvironment(const std::string& name) {
  if (name.empty()) return;
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return;
  Store& store = TheStore();
  absl::MutexLock lock(&store.mu);
  store.secrets.try_emplace(name, value);
  ZeroValueInPlace(name);
  unsetenv(name.c_str());
}

std::string SecretOrEnvironment(const std::string& name) {
  if (name.empty()) return "";
  if (const char* value = std::getenv(name.c_str()); value != nullptr) return value;
  Store& store = TheStore();
  absl::MutexLock lock(&store.mu);
  auto it = store.secrets.find(name);
  return it == store.secrets.end() ? "" : it->second;
}

bool MakeProcessNonDumpable() { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0; }

}  // namespace taskboard::worker
