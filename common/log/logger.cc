#include "common/log/logger.h"

#include <atomic>
#include <cstdio>
#include <utility>

#include "absl/synchronization/mutex.h"

namespace taskboard::log {
namespace {

// The minimum level lives outside the mutex: disabled lines cost one load.
std::atomic<int> min_level{static_cast<int>(Level::kInfo)};

struct State {
  absl::Mutex mu;
  LogConfig config ABSL_GUARDED_BY(mu);
  Sink sink ABSL_GUARDED_BY(mu);
};

State& GetState() {
  // Never destroyed: threads may still log while statics are torn down.
  static State* const state = new State;
  return *state;
}

}  // namespace

void Configure(LogConfig config) {
  State& state = GetState();
  absl::MutexLock lock(&state.mu);
  min_level.store(static_cast<int>(config.min_level), std::memory_order_relaxed);
  state.config = std::move(config);
}

LogConfig CurrentConfig() {
  State& state = GetState();
  absl::MutexLock lock(&state.mu);
  return state.config;
}

bool Enabled(Level level) {
  return static_cast<int>(level) >= min_level.load(std::memory_order_relaxed);
}

void Write(Record record) {
  State& state = GetState();
  // Formatting happens under the lock too: it keeps the config consistent
  // for the line, and a line costs microseconds, which is fine at the volume
  // of info lines (per run, per worker); per-task lines are debug.
  absl::MutexLock lock(&state.mu);
  record.component = state.config.component;
  std::string line = FormatLine(record, state.config.format);
  if (state.sink) {
    state.sink(line);
    return;
  }
  line.push_back('\n');
  // One fwrite per line, under the mutex (stderr is unbuffered): a line is
  // never split by another thread's line.
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

Sink SetSinkForTesting(Sink sink) {
  State& state = GetState();
  absl::MutexLock lock(&state.mu);
  std::swap(state.sink, sink);
  return sink;
}

}  // namespace taskboard::log
