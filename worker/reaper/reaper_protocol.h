#ifndef TASKBOARD_WORKER_REAPER_REAPER_PROTOCOL_H_
#define TASKBOARD_WORKER_REAPER_REAPER_PROTOCOL_H_

// How the worker and taskboard-reaper talk (worker/reaper/reaper_main.cc;
// the worker's side is worker/base/subprocess.cc). One reaper runs each
// agent or command-tool process:
//
//   taskboard-reaper --status-fd=N --exec=PATH [--cgroup=DIR] -- ARGV0 [ARGS...]
//
// PATH is the program (the worker searched its PATH already); it runs with
// ARGV0 ARGS... as its argv and the reaper's environment, working directory
// and standard streams, in a process group of its own. The reaper writes one
// line to descriptor N before it exits, after every process of the agent's
// tree is gone:
//
//   status W        the agent's wait status (waitpid)
//   exec-error E    PROGRAM could not be executed: errno E
//   error TEXT      the reaper could not start it (TEXT says why)
//
// No line means the reaper itself was killed (by the agent, or by the
// worker's last resort): the worker then ends what the reaper left behind.
//
// Signals the reaper takes: SIGUSR1 ends the agent's tree now (SIGKILL to
// every process in it, however far it got from its group); SIGTERM, SIGINT,
// SIGHUP and SIGQUIT are ignored, because the worker sends SIGTERM to the
// whole process group first so that the agent can stop cleanly. The reaper
// asks for SIGUSR1 when the worker's thread that started it dies, so a
// worker that crashes takes its agents with it.

namespace taskboard::worker::reaper {

inline constexpr char kStatusFdFlag[] = "--status-fd=";
inline constexpr char kExecFlag[] = "--exec=";
inline constexpr char kCgroupFlag[] = "--cgroup=";
inline constexpr char kStatusLine[] = "status ";
inline constexpr char kExecErrorLine[] = "exec-error ";
inline constexpr char kErrorLine[] = "error ";

}  // namespace taskboard::worker::reaper

#endif  // TASKBOARD_WORKER_REAPER_REAPER_PROTOCOL_H_
