#ifndef TASKBOARD_TOOLS_CLI_RUN_FOLLOWER_H_
#define TASKBOARD_TOOLS_CLI_RUN_FOLLOWER_H_

// Follows a run to its end, for `taskboard run`, `watch` and `resume`:
//
//   GetRun -> show --> WatchRun(after_seq) -- events --> apply to the snapshot -> show
//                 ^            |  stream broke (UNAVAILABLE)
//                 +-- backoff -+  GetRun, reconnect with after_seq = last seen seq
//
// With replicated schedulers the calls go to the leader (SchedulerClient):
// a replica that answers "not the leader" costs no backoff, and the stream
// resumes on the leader it named after the last event seen.
// The snapshot is fetched (GetRun) at the start, after a reconnect, once
// the run finished (for its output and billing), and when an event cannot
// be applied to it (run_snapshot.h); otherwise the events keep it current,
// since each carries the task or phase it changed whole. Fetching a
// 100,000-task run after each batch of events cost a quarter of the run's
// throughput. At the start of a watch from seq 0, and at the end, the run is
// fetched without its tasks: the replay brings every task, and the events
// keep them. Tool calls (`observation` events) are not in the snapshot:
// they are counted as they stream by, for the view's tool and cache-hit
// counts. A `resume` follows only the resumed attempt's events, so it counts
// only its calls. The live view (live_view.h) draws on `err`; the run's
// output goes to `out`, so `taskboard run flow.yaml > result.md` captures
// just the result.

#include <cstdint>
#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "tools/cli/scheduler_client.h"
#include "tools/cli/terminal.h"

namespace taskboard::cli {

struct FollowOptions {
  // Print every event as one JSON line on `out`, then the final run as JSON,
  // instead of the live view and the output.
  bool json = false;
  // Replay events after this sequence number (0: the whole log).
  int64_t after_seq = 0;
  // Where the live view draws (standard error).
  TerminalInfo terminal;
  // Give up when the scheduler stays unreachable this long after the watch
  // broke; the run goes on regardless.
  absl::Duration reconnect_window = absl::Seconds(60);
  // How often the live view may redraw without news.
  absl::Duration tick = absl::Milliseconds(100);
};

// Exit codes: 0 the run completed; 1 it failed, was blocked or cancelled, or
// is paused; 2 the scheduler could not be reached (or stayed unreachable
// longer than the reconnect window); 1 for other RPC errors (unknown run).
int FollowRun(SchedulerClient& client, absl::string_view command, const std::string& run_id,
              const FollowOptions& options, std::ostream& out, std::ostream& err);

}  // namespace taskboard::cli

#endif  // TASKBOARD_TOOLS_CLI_RUN_FOLLOWER_H_
