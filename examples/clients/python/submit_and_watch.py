#!/usr/bin/python3
"""Submits a two-step flow to a Taskboard scheduler, prints its events, then its result.

The smallest complete client of the public API (proto/taskboard/v1/scheduler.proto):
SubmitRun with inline DSL text, WatchRun until the run finishes, GetRun for the result.
Exit status: 0 when the run completed, 1 when it ended any other way, 2 when a call failed.

Stubs are generated, never committed: examples/clients/gen_stubs.sh python OUT, then run
with PYTHONPATH=OUT (see README.md next to this file).
"""

import argparse
import json
import sys

import grpc

try:
    from taskboard.v1 import common_pb2, scheduler_pb2, scheduler_pb2_grpc
except ImportError as error:
    sys.exit(
        f"cannot import the Taskboard stubs ({error}): generate them with "
        "`examples/clients/gen_stubs.sh python OUT` and run with PYTHONPATH=OUT")


def two_step_flow(agent, greeting):
    """Step 2 receives step 1's output through {previous.output}: the result proves both ran."""
    return json.dumps({
        "name": "polyglot-python",
        "chain": [
            {"agent": agent, "task": greeting},
            {"agent": agent, "task": "second step saw: {previous.output}"},
        ],
    })


def describe(event):
    """One line per RunEvent, named after the oneof case the scheduler set."""
    kind = event.WhichOneof("event")
    if kind == "run_started":
        detail = common_pb2.RunStatus.Name(event.run_started.status)
    elif kind == "task_change":
        task = event.task_change.task
        detail = f"{task.task_id} {common_pb2.TaskState.Name(task.state)}"
    elif kind == "tasks_created":
        # The tasks a step added, each as a task_change would carry it.
        tasks = event.tasks_created.tasks
        detail = " ".join(
            [str(len(tasks))]
            + [f"{task.task_id} {common_pb2.TaskState.Name(task.state)}" for task in tasks]
        )
    elif kind == "phase_change":
        phase = event.phase_change.phase
        detail = f"{phase.phase_id} {common_pb2.TaskState.Name(phase.state)}"
    elif kind == "output_delta":
        detail = f"{event.output_delta.task_id} {len(event.output_delta.text)} bytes"
    elif kind == "run_finished":
        detail = common_pb2.RunStatus.Name(event.run_finished.status)
    else:
        detail = ""
    return f"event {event.seq} {kind} {detail}".rstrip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:7233", help="scheduler host:port")
    parser.add_argument("--agent", default="noop", help="agent that runs both steps")
    parser.add_argument("--greeting", default="hello from python", help="step 1's task")
    parser.add_argument("--timeout", type=float, default=60, help="seconds for the whole run")
    args = parser.parse_args()

    with grpc.insecure_channel(args.address) as channel:
        scheduler = scheduler_pb2_grpc.SchedulerStub(channel)
        try:
            submitted = scheduler.SubmitRun(
                scheduler_pb2.SubmitRunRequest(source=scheduler_pb2.FlowSource(
                    text=two_step_flow(args.agent, args.greeting),
                    format=scheduler_pb2.DSL_FORMAT_JSON)),
                timeout=args.timeout, wait_for_ready=True)
            print(f"submitted run {submitted.run_id}", flush=True)

            # WatchRun replays from seq 1 and ends once run_finished was sent.
            watch = scheduler.WatchRun(scheduler_pb2.WatchRunRequest(run_id=submitted.run_id),
                                       timeout=args.timeout)
            for response in watch:
                print(describe(response.event), flush=True)

            run = scheduler.GetRun(scheduler_pb2.GetRunRequest(run_id=submitted.run_id),
                                   timeout=args.timeout).run
        except grpc.RpcError as error:
            print(f"error: {error.code().name}: {error.details()} (scheduler {args.address})",
                  file=sys.stderr)
            return 2

    print(f"result: {common_pb2.RunStatus.Name(run.status)}")
    print(f"output: {run.output}")
    if run.error:
        print(f"error: {run.error}")
    return 0 if run.status == common_pb2.RUN_STATUS_COMPLETED else 1


if __name__ == "__main__":
    sys.exit(main())
