"""Celery client for the peers benchmark.

A batch is one `group` of n `noop` signatures sent with apply_async (one producer, one message
per task on the Redis list) and waited for with GroupResult.get(), which with the Redis result
backend is a native join: the client subscribes to the tasks' result keys instead of polling
each one. The batch ends when every result is back, so the client sees each task finish, as
Dask's client does.

Single-task latency: noop.delay().get().
"""

from celery import group

import harness
from celery_app import app, noop


def main():
    parser = harness.common_args(__doc__)
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()

    def run_one():
        noop.delay().get(timeout=args.timeout)

    def run_batch(n, rep):
        result = group(noop.s() for _ in range(n)).apply_async()
        values = result.get(timeout=args.timeout)
        if len(values) != n:
            raise SystemExit(f"celery: {len(values)} results for {n} tasks")
        # Free the client-side result objects and the backend keys before the next repetition.
        result.forget()
        return {}

    harness.measure(args, run_batch, run_one, client_mode="self")
    app.close()


if __name__ == "__main__":
    main()
