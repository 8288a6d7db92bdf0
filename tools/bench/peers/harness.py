"""Shared measurement code for the peer drivers (taskboard_driver, celery_driver, dask_driver).

Every driver supplies two callables, `run_batch(n, rep)` (submit n no-op tasks and return once
all have finished) and `run_one()` (submit one no-op task and wait for it), and the pids of the
server processes (scheduler or broker, worker) that run.sh started. `measure` times them and
reads CPU time around each repetition, then appends one JSON line to the results file that
report.py turns into the table.
"""

import argparse
import json
import os
import resource
import socket
import statistics
import sys
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it, close).

    Used for Redis, which cannot report a port it chose itself. The small race (something else
    takes the port before Redis binds it) shows up as Redis failing to start, not as a wrong
    measurement.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _proc_table():
    """pid -> (ppid, cpu ticks) for every live process.

    The ticks are utime + stime + cutime + cstime: a process's own CPU plus that of the children
    it has already reaped, so a tree's sum stays correct when a child exits mid-run (its CPU
    moves from its own entry into its parent's c-fields).
    """
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read().decode("ascii", "replace")
        except OSError:
            continue  # exited while we listed /proc
        # The command name (field 2) may contain spaces and parentheses: split after the last ')'.
        fields = stat[stat.rindex(")") + 2:].split()
        ppid = int(fields[1])
        utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
        table[int(entry)] = (ppid, utime + stime + cutime + cstime)
    return table


def tree_cpu_seconds(root_pids):
    """CPU seconds used so far by each root pid and all its live descendants.

    Worker processes of the peers fork (Celery's prefork pool, Dask's nanny and its worker),
    so a single /proc/PID/stat would miss most of their work.
    """
    table = _proc_table()
    children = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    result = {}
    for name, root in root_pids.items():
        ticks, stack, seen = 0, [root], set()
        while stack:
            pid = stack.pop()
            if pid in seen or pid not in table:
                continue
            seen.add(pid)
            ticks += table[pid][1]
            stack.extend(children.get(pid, []))
        result[name] = ticks / CLOCK_TICKS
    return result


def machine_busy_seconds():
    """CPU seconds all cores have spent busy since boot (/proc/stat: everything but idle and
    iowait). Compared with what the measured processes used, it shows how much CPU something
    else on the machine took during a batch (a build, another benchmark)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle, iowait = fields[3], fields[4]
    # guest time is already counted in user time
    return (sum(fields[:8]) - idle - iowait) / CLOCK_TICKS


def client_cpu_seconds(mode):
    """CPU seconds of the client so far.

    mode "self": the driver process is the client (Celery, Dask: their Python client libraries).
    mode "children": the client is the `taskboard` CLI processes the driver starts and waits
    for; the driver's own Python (spawning and waiting) is harness, not client, and is left out.
    """
    who = resource.RUSAGE_SELF if mode == "self" else resource.RUSAGE_CHILDREN
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def common_args(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--system", required=True)
    parser.add_argument("--config", required=True, help="configuration label for the table")
    parser.add_argument("--n", type=int, required=True, help="tasks per repetition")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--latency-samples", type=int, default=20)
    parser.add_argument("--latency-warmup", type=int, default=3)
    parser.add_argument("--pid", action="append", default=[], metavar="ROLE=PID",
                        help="server process to account CPU for (role: scheduler or worker)")
    parser.add_argument("--results", required=True, help="JSON-lines file to append to")
    parser.add_argument("--reference", action="store_true",
                        help="this row is the one every ratio in the table is taken against")
    return parser


def parse_pids(items):
    pids = {}
    for item in items:
        role, pid = item.split("=", 1)
        pids[role] = int(pid)
    return pids


def log(*parts):
    print("  ", *parts, file=sys.stderr, flush=True)


def measure(args, run_batch, run_one, client_mode, check=None, before_rep=None, extra=None):
    """Single-task latency first (it also warms up connections and the worker), then the
    throughput repetitions. Each repetition's CPU window is exactly its timed window.

    `before_rep()`, if given, runs before each repetition's clock and CPU window start (e.g. to
    let a peer finish cleaning up the previous batch). `check(reps)`, if given, runs after the
    last clock stopped: it verifies that every batch really finished (raising stops the
    benchmark) and may add fields to the repetitions. `extra` is added to the row as is (e.g.
    a setting read back from the running peer)."""
    pids = parse_pids(args.pid)

    for _ in range(args.latency_warmup):
        run_one()
    latencies = []
    for _ in range(args.latency_samples):
        start = time.perf_counter()
        run_one()
        latencies.append(time.perf_counter() - start)

    reps = []
    for rep in range(args.reps):
        if before_rep:
            before_rep()
        machine_before = machine_busy_seconds()
        servers_before = tree_cpu_seconds(pids)
        client_before = client_cpu_seconds(client_mode)
        start = time.perf_counter()
        info = run_batch(args.n, rep) or {}
        elapsed = time.perf_counter() - start
        client_after = client_cpu_seconds(client_mode)
        servers_after = tree_cpu_seconds(pids)
        machine_after = machine_busy_seconds()
        cpu = {role: servers_after[role] - servers_before[role] for role in pids}
        cpu["client"] = client_after - client_before
        # Everything else the machine did meanwhile (including this harness's own Python).
        other = max(0.0, machine_after - machine_before - sum(cpu.values()))
        reps.append({"seconds": elapsed, "tasks_per_s": args.n / elapsed, "cpu": cpu,
                     "other_cpu": other, **info})
        log(f"{args.system} / {args.config}: rep {rep + 1}: {args.n / elapsed:,.0f} tasks/s,",
            "cpu " + ", ".join(f"{k} {v:.2f}s" for k, v in cpu.items()),
            f"(rest of the machine {other:.2f}s)")

    if check:
        check(reps)
    row = {
        "system": args.system,
        "config": args.config,
        "n": args.n,
        "reference": args.reference,
        "latency_ms": [x * 1000 for x in latencies],
        "latency_ms_median": statistics.median(latencies) * 1000,
        "reps": reps,
        **(extra or {}),
    }
    with open(args.results, "a") as f:
        f.write(json.dumps(row) + "\n")
