"""The Celery app of the peers benchmark, imported by both the worker (`celery -A celery_app
worker`) and the client (celery_driver.py), so both sides agree on every setting.

Settings come from the environment run.sh sets:
  PEERS_REDIS_URL   redis://127.0.0.1:PORT: broker on db 0, results on db 1 (one redis-server,
                    so its persistence mode covers both the queue and the results)
  PEERS_PREFETCH    worker_prefetch_multiplier: unacknowledged messages the worker may hold
                    per pool slot (Celery's main throughput knob for short tasks; default 4)
  PEERS_ACKS_LATE   1: acknowledge after the task ran (a task whose worker dies is delivered
                    again, as Taskboard re-dispatches a lost lease); 0: Celery's default,
                    acknowledge on receipt (at most once)
"""

import os

from celery import Celery

REDIS = os.environ["PEERS_REDIS_URL"]

app = Celery("peers", broker=f"{REDIS}/0", backend=f"{REDIS}/1")
app.conf.update(
    worker_prefetch_multiplier=int(os.environ.get("PEERS_PREFETCH", "4")),
    task_acks_late=os.environ.get("PEERS_ACKS_LATE", "1") == "1",
    # JSON both ways, Celery's default; named so the comparison does not depend on a default.
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    # No monitoring traffic: events would add a message per task state change.
    worker_send_task_events=False,
    task_send_sent_event=False,
    # Results live long enough for the client, then Redis expires them.
    result_expires=3600,
    broker_connection_retry_on_startup=True,
)


@app.task(name="peers.noop")
def noop():
    return None
