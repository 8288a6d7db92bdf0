#!/usr/bin/python3
"""A Taskboard worker in Python: offers the agent `py-upper`, which upper-cases its prompt.

It speaks the WorkerGateway protocol (proto/taskboard/v1/worker.proto) the way the C++
worker does (worker/session/session.h), to show that workers need not be C++:

  Hello{slots = free slots, held_tasks} -> Welcome{heartbeat_interval_ms, revoked leases}
  Assignment -> TaskStarted, OutputDelta, TaskResult (kept until its ResultAck), Credits{1}
  Heartbeat{held leases} every heartbeat_interval_ms, from Hello on
  Cancel -> the task stops and reports "cancelled: <reason>"
  Drain (or SIGTERM) -> Draining{grace_ms}; new assignments are handed back (TaskReturned);
                        running tasks get the grace period, then are handed back; the
                        stream is closed once every report is acknowledged; exit 0
  stream lost -> reconnect with backoff; running tasks go on and are listed in Hello

Stubs are generated, never committed: examples/clients/gen_stubs.sh python OUT, then run
with PYTHONPATH=OUT (see README.md next to this file).
"""

import argparse
import json
import os
import queue
import random
import signal
import socket
import sys
import threading
import time

import grpc

try:
    from taskboard.v1 import common_pb2, worker_pb2, worker_pb2_grpc
except ImportError as error:
    sys.exit(
        f"cannot import the Taskboard stubs ({error}): generate them with "
        "`examples/clients/gen_stubs.sh python OUT` and run with PYTHONPATH=OUT")

VERSION = "py-worker/0.1"
DRAINING_REASON = "worker draining"
GRACE_EXPIRED_REASON = "worker draining: grace period expired"
# After the drain: how long the last reports may wait for their ResultAck.
DRAIN_ACK_WAIT_S = 2.0
# After half-closing the stream: how long the scheduler has to end it.
CLOSE_WAIT_S = 5.0


def log(level, msg, **fields):
    """One JSON object per line on stderr, like the C++ worker."""
    now = time.time()
    ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
    print(json.dumps({"ts": ts, "level": level, "msg": msg, **fields}), file=sys.stderr,
          flush=True)


class Cancelled(Exception):
    pass


def py_upper(assignment, cancel, emit, work_s):
    """The agent: upper-cases the prompt. `work_s` stretches it (heartbeats, cancel, drain)."""
    if cancel.wait(work_s):
        raise Cancelled(cancel.reason)
    output = assignment.prompt.upper()
    emit(output)
    return output


AGENTS = {
    "py-upper": worker_pb2.AgentInfo(
        name="py-upper", description="upper-cases its prompt (Python example worker)",
        type="command"),
}


class CancelEvent(threading.Event):
    reason = ""

    def cancel(self, reason):
        if not self.is_set():
            self.reason = reason
            self.set()


class Task:
    def __init__(self, assignment):
        self.assignment = assignment
        self.cancel = CancelEvent()
        self.revoked = False
        # The drain grace period ran out: report TaskReturned instead of the outcome.
        self.returned = False


def request(**message):
    return worker_pb2.ConnectRequest(**message)


class Worker:
    """One stream at a time; every field below is guarded by `self.cond`'s lock."""

    def __init__(self, stub, worker_id, slots, drain_grace_s, work_s):
        self.stub = stub
        self.worker_id = worker_id
        self.incarnation = "%016x" % random.getrandbits(64)
        self.slots = slots
        self.drain_grace_s = drain_grace_s  # for SIGTERM, and a Drain without grace_ms
        self.work_s = work_s
        self.cond = threading.Condition()
        self.outbox = None  # queue.Queue of the current stream; None while down
        self.call = None  # the current Connect call, to cancel one the scheduler keeps open
        self.ready = False  # Welcome received on the current stream
        self.heartbeat_interval_s = 2.0
        self.tasks = {}  # lease_id -> Task, running
        self.unacked = {}  # lease_id -> final report (ConnectRequest), insertion ordered
        self.draining = False
        self.drain_deadline = None
        self.closed = False  # drained: no more streams
        self.close_deadline = None

    # --- the stream -------------------------------------------------------------------
    def run(self):
        """Serves until drained, reconnecting with exponential backoff and jitter."""
        ticker = threading.Thread(target=self.tick_loop, daemon=True)
        ticker.start()
        failures = 0
        while True:
            outbox = queue.Queue()
            with self.cond:
                if self.closed:
                    break
                self.outbox, self.ready = outbox, False
                outbox.put(self.hello_locked())
                if self.draining:
                    outbox.put(request(draining=worker_pb2.Draining(
                        grace_ms=max(0, int((self.drain_deadline - time.monotonic()) * 1000)))))
            error = "stream ended"
            try:
                # The request iterator ends (WritesDone) when None is queued.
                call = self.stub.Connect(iter(outbox.get, None))
                with self.cond:
                    self.call = call
                for response in call:
                    if response.WhichOneof("msg") == "welcome":
                        failures = 0
                    self.handle(response)
            except grpc.RpcError as rpc_error:
                error = f"{rpc_error.code().name}: {rpc_error.details()}"
            outbox.put(None)  # releases gRPC's request thread
            with self.cond:
                self.outbox, self.ready, self.call = None, False, None
                if self.closed:
                    break
                failures += 1
                delay = random.uniform(0.5, 1.0) * min(5.0, 0.1 * 2 ** (failures - 1))
                log("info", "disconnected from scheduler; reconnecting", worker_id=self.worker_id,
                    error=error, retry_in_ms=int(delay * 1000), attempt=failures)
                self.cond.wait_for(lambda: self.closed, timeout=delay)
        with self.cond:
            self.closed = True
            self.cond.notify_all()
        ticker.join()
        log("info", "drained; exiting", worker_id=self.worker_id)

    def send_locked(self, message):
        if self.outbox is not None:
            self.outbox.put(message)

    def hello_locked(self):
        return request(hello=worker_pb2.Hello(
            worker_id=self.worker_id, incarnation=self.incarnation,
            agents=list(AGENTS.values()),
            slots=0 if self.draining else self.slots - len(self.tasks),
            version=VERSION,
            held_tasks=[worker_pb2.HeldTask(task_id=t.assignment.task_id, lease_id=lease)
                        for lease, t in self.tasks.items() if not t.revoked]))

    def held_leases_locked(self):
        return sorted(lease for lease, t in self.tasks.items() if not t.revoked)

    # --- what the scheduler says ------------------------------------------------------
    def handle(self, response):
        kind = response.WhichOneof("msg")
        with self.cond:
            if kind == "welcome":
                self.on_welcome_locked(response.welcome)
            elif kind == "assignment":
                self.on_assignment_locked(response.assignment)
            elif kind == "cancel":
                task = self.tasks.get(response.cancel.lease_id)
                if task is not None and task.assignment.task_id == response.cancel.task_id:
                    task.cancel.cancel(response.cancel.reason or "cancelled by the scheduler")
            elif kind == "drain":
                grace_s = (response.drain.grace_ms / 1000 if response.drain.grace_ms > 0
                           else self.drain_grace_s)
                self.drain_locked(grace_s, response.drain.reason or "scheduler asked")
            elif kind == "result_ack":
                ack = response.result_ack
                self.unacked.pop(ack.lease_id, None)
                if not ack.accepted:
                    log("warn", "scheduler rejected a task result", worker_id=self.worker_id,
                        task_id=ack.task_id, lease_id=ack.lease_id, reason=ack.reason)
            # tool_decision: py-upper calls no tools, so it never sends a ToolLookup.
            self.cond.notify_all()

    def on_welcome_locked(self, welcome):
        self.ready = True
        if welcome.heartbeat_interval_ms > 0:
            self.heartbeat_interval_s = welcome.heartbeat_interval_ms / 1000
        for lease in welcome.revoked_lease_ids:
            self.unacked.pop(lease, None)
            task = self.tasks.get(lease)
            if task is not None:
                task.revoked = True
                task.cancel.cancel("lease revoked by the scheduler")
        # Results finished while no stream was up (or lost with it) are sent again.
        for report in self.unacked.values():
            self.send_locked(report)
        log("info", "connected to scheduler", worker_id=self.worker_id,
            scheduler_id=welcome.scheduler_id, held_tasks=len(self.tasks),
            resent_results=len(self.unacked))

    def on_assignment_locked(self, assignment):
        if self.draining:
            self.send_locked(request(task_returned=worker_pb2.TaskReturned(
                task_id=assignment.task_id, lease_id=assignment.lease_id,
                reason=DRAINING_REASON)))
            return
        if assignment.lease_id in self.tasks:
            return  # a duplicate delivery
        if len(self.tasks) >= self.slots:
            self.send_locked(request(task_returned=worker_pb2.TaskReturned(
                task_id=assignment.task_id, lease_id=assignment.lease_id,
                reason="worker has no free slot (it offered none)")))
            return
        if assignment.agent not in AGENTS:
            self.report_locked(assignment.lease_id, request(task_result=worker_pb2.TaskResult(
                task_id=assignment.task_id, lease_id=assignment.lease_id, success=False,
                error=f"agent '{assignment.agent}' is not offered by this worker "
                      f"(it offers: {', '.join(AGENTS)})",
                execution=common_pb2.TaskExecution(prompt=assignment.prompt))))
            self.free_slot_locked()
            return
        task = Task(assignment)
        self.tasks[assignment.lease_id] = task
        self.send_locked(request(task_started=worker_pb2.TaskStarted(
            task_id=assignment.task_id, lease_id=assignment.lease_id)))
        threading.Thread(target=self.run_task, args=(task,), daemon=True).start()

    # --- tasks ------------------------------------------------------------------------
    def run_task(self, task):
        assignment = task.assignment

        def emit(text):
            with self.cond:
                if self.ready:  # live output is not kept for a stream to come
                    self.send_locked(request(output_delta=worker_pb2.OutputDelta(
                        task_id=assignment.task_id, lease_id=assignment.lease_id, text=text)))

        execution = common_pb2.TaskExecution(prompt=assignment.prompt, turns=1)
        try:
            output = py_upper(assignment, task.cancel, emit, self.work_s)
            result = worker_pb2.TaskResult(task_id=assignment.task_id,
                                           lease_id=assignment.lease_id, success=True,
                                           output=output, execution=execution)
        except Cancelled as cancelled:
            execution.stopped, execution.stop_reason = True, "cancelled"
            result = worker_pb2.TaskResult(task_id=assignment.task_id,
                                           lease_id=assignment.lease_id, success=False,
                                           error=f"cancelled: {cancelled}", execution=execution)
        except Exception as error:  # an agent bug fails the attempt, not the worker
            execution.stopped, execution.stop_reason = True, "error"
            result = worker_pb2.TaskResult(task_id=assignment.task_id,
                                           lease_id=assignment.lease_id, success=False,
                                           error=f"py-upper failed: {error!r}",
                                           execution=execution)
        with self.cond:
            del self.tasks[assignment.lease_id]
            if not task.revoked:  # nothing to report for a revoked lease
                report = (request(task_returned=worker_pb2.TaskReturned(
                    task_id=assignment.task_id, lease_id=assignment.lease_id,
                    reason=GRACE_EXPIRED_REASON)) if task.returned
                          else request(task_result=result))
                self.report_locked(assignment.lease_id, report)
            self.free_slot_locked()
            self.cond.notify_all()

    def report_locked(self, lease_id, report):
        """The final report goes out now if a stream is READY, and is kept until acked."""
        self.unacked[lease_id] = report
        if self.ready:
            self.send_locked(report)

    def free_slot_locked(self):
        if not self.draining:
            self.send_locked(request(credits=worker_pb2.Credits(slots=1)))

    # --- heartbeats and draining ------------------------------------------------------
    def drain(self, reason):
        with self.cond:
            self.drain_locked(self.drain_grace_s, reason)
            self.cond.notify_all()

    def drain_locked(self, grace_s, reason):
        deadline = time.monotonic() + max(0.0, grace_s)
        if self.draining:
            self.drain_deadline = min(self.drain_deadline, deadline)
            return
        self.draining, self.drain_deadline = True, deadline
        self.send_locked(request(draining=worker_pb2.Draining(grace_ms=int(grace_s * 1000))))
        log("info", "draining", worker_id=self.worker_id, grace_ms=int(grace_s * 1000),
            reason=reason, running=len(self.tasks))

    def tick_loop(self):
        next_heartbeat = time.monotonic()
        grace_expired = False
        with self.cond:
            while not (self.closed and self.outbox is None):
                now = time.monotonic()
                wake = now + 1.0
                if self.outbox is not None:
                    if now >= next_heartbeat:
                        self.send_locked(request(heartbeat=worker_pb2.Heartbeat(
                            lease_ids=self.held_leases_locked())))
                        next_heartbeat = now + self.heartbeat_interval_s
                    wake = min(wake, next_heartbeat)
                if self.draining and not grace_expired:
                    if now >= self.drain_deadline:
                        grace_expired = True
                        for task in self.tasks.values():
                            task.returned = True
                            task.cancel.cancel(GRACE_EXPIRED_REASON)
                    else:
                        wake = min(wake, self.drain_deadline)
                if self.draining and not self.closed and not self.tasks:
                    give_up = self.drain_deadline + DRAIN_ACK_WAIT_S
                    if not self.unacked or now >= give_up:
                        self.closed = True
                        self.close_deadline = now + CLOSE_WAIT_S
                        self.send_locked(None)  # WritesDone: the scheduler ends the stream
                    else:
                        wake = min(wake, give_up)
                if self.closed and self.call is not None:
                    if now >= self.close_deadline:
                        self.call.cancel()
                        self.call = None
                    else:
                        wake = min(wake, self.close_deadline)
                self.cond.wait(timeout=max(0.0, wake - now))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", default=os.environ.get("TASKBOARD_SCHEDULER",
                                                              "127.0.0.1:7233"),
                        help="scheduler host:port (env TASKBOARD_SCHEDULER)")
    parser.add_argument("--worker-id", default=f"{socket.gethostname()}-py-{os.getpid()}")
    parser.add_argument("--slots", type=int, default=4)
    parser.add_argument("--drain-grace-seconds", type=float, default=30)
    parser.add_argument("--work-ms", type=int, default=0,
                        help="how long py-upper works on each task (to try cancel and drain)")
    args = parser.parse_args()
    if args.slots < 1:
        parser.error("--slots must be at least 1")

    channel = grpc.insecure_channel(args.scheduler, options=[
        ("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)])
    worker = Worker(worker_pb2_grpc.WorkerGatewayStub(channel), args.worker_id, args.slots,
                    args.drain_grace_seconds, args.work_ms / 1000)
    log("info", "worker starting", worker_id=args.worker_id, scheduler=args.scheduler,
        slots=args.slots, agents=list(AGENTS))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: worker.drain(signal.Signals(signum).name))
    # The session runs on its own thread so that signals reach the main thread promptly.
    session = threading.Thread(target=worker.run)
    session.start()
    while session.is_alive():
        session.join(0.2)
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
