#ifndef TASKBOARD_SCHEDULER_ENGINE_CORE_CLOCK_H_
#define TASKBOARD_SCHEDULER_ENGINE_CORE_CLOCK_H_

// Wall-clock time in Unix milliseconds behind an interface, so timers (retry
// backoff, leases, task timeouts) are tested with a clock the test moves.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace taskboard::engine {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() const = 0;
  // Microseconds, for latency measurements finer than the timers need.
  virtual int64_t NowUs() const { return NowMs() * 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int64_t NowUs() const override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that only moves when told to. Thread-safe.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_ms = 1'700'000'000'000) : now_(start_ms) {}
  int64_t NowMs() const override { return now_.load(); }
  void Advance(int64_t ms) { now_ += ms; }

 private:
  std::atomic<int64_t> now_;
};

}  // namespace taskboard::engine

#endif  // TASKBOARD_SCHEDULER_ENGINE_CORE_CLOCK_H_
