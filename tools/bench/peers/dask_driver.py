"""Dask distributed client for the peers benchmark.

A batch is client.map(noop, range(n), pure=False) followed by client.gather() of every future:
the batch ends when every result is back at the client. pure=False gives each task a random key
instead of hashing its arguments (no deduplication, no tokenizing cost).

Between repetitions the driver waits until the scheduler has forgotten the previous batch's
tasks, so one repetition's clean-up does not land in the next one's CPU window.

Single-task latency: client.submit(noop, i, pure=False).result().
"""

import itertools
import time

from distributed import Client

import harness
from dask_tasks import noop


def main():
    parser = harness.common_args(__doc__)
    parser.add_argument("--scheduler-file", required=True)
    args = parser.parse_args()

    client = Client(scheduler_file=args.scheduler_file)
    client.wait_for_workers(1)
    counter = itertools.count()

    def run_one():
        client.submit(noop, next(counter), pure=False).result()

    def run_batch(n, rep):
        futures = client.map(noop, range(n), pure=False)
        values = client.gather(futures)
        if len(values) != n:
            raise SystemExit(f"dask: {len(values)} results for {n} tasks")
        return {}  # the futures go out of scope here; the scheduler forgets them asynchronously

    def scheduler_task_count(dask_scheduler=None):
        return len(dask_scheduler.tasks)

    def settle():
        deadline = time.monotonic() + 60
        while client.run_on_scheduler(scheduler_task_count) and time.monotonic() < deadline:
            time.sleep(0.05)

    # Read the setting back from the running scheduler: the env var must have reached it.
    saturation = client.run_on_scheduler(
        lambda dask_scheduler=None: dask_scheduler.WORKER_SATURATION)
    harness.log(f"dask scheduler: worker-saturation {saturation}")
    harness.measure(args, run_batch, run_one, client_mode="self", before_rep=settle,
                    extra={"worker_saturation": str(saturation)})
    client.close()


if __name__ == "__main__":
    main()
