"""Calls to replicated Taskboard schedulers that follow the leader.

A scheduler replica that does not lead answers every call UNAVAILABLE with the
trailer `taskboard-leader: HOST:PORT` (docs/operations.md, "Clients and
replicated schedulers"). LeaderChannel keeps one channel per address, makes
each call on the one it believes leads, goes to the named leader at once, and
moves past an address that cannot be reached after a capped exponential
backoff, until `give_up` seconds have passed (every address is tried at least
once):

    leader = LeaderChannel("sched-0:7233,sched-1:7233,sched-2:7233")
    run = leader.call(lambda channel: SchedulerStub(channel).GetRun(request, timeout=30))

A call that creates something should carry an idempotency key
(SubmitRunRequest.idempotency_key): an attempt cut off by a dying leader may
have taken effect.
"""

import random
import time

import grpc

LEADER_KEY = "taskboard-leader"
# Bounds on what a hint can teach, like the CLI's (common/failover): replicas naming ever new
# leaders cannot grow the list of addresses.
MAX_LEARNED = 8
MAX_HINT_BYTES = 270


class LeaderNotFound(Exception):
    """No address answered as the leader in time; `tried` maps each address to its answer."""

    def __init__(self, give_up, tried):
        self.tried = dict(tried)
        answers = ", ".join(f"{address} ({answer})" for address, answer in tried.items())
        super().__init__(f"no scheduler answered as the leader within {give_up:g}s; tried {answers}")


def leader_hint(error):
    """The leader a NotLeader answer names (its trailer), or None."""
    for key, value in error.trailing_metadata() or ():
        if key == LEADER_KEY:
            if not value or len(value.encode()) > MAX_HINT_BYTES or any(c.isspace() for c in value):
                return None
            return value
    return None


class LeaderChannel:
    def __init__(self, addresses, give_up=11.0, backoff_base=0.1, backoff_cap=2.0,
                 channel_factory=grpc.insecure_channel):
        if isinstance(addresses, str):
            addresses = [part.strip() for part in addresses.split(",")]
        if not addresses or not all(addresses):
            raise ValueError(f"scheduler addresses {addresses!r}: give host:port[,host:port...]")
        self.addresses = list(dict.fromkeys(addresses))
        self.given = len(self.addresses)
        self.current = 0
        self.give_up = give_up
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.failed_attempts = 0  # over the channel's life, for tests and logs
        self.waited = 0.0
        self._channel_factory = channel_factory
        self._channels = {}

    @property
    def address(self):
        return self.addresses[self.current]

    def channel(self):
        """The channel to the address believed to lead."""
        address = self.address
        if address not in self._channels:
            self._channels[address] = self._channel_factory(address)
        return self._channels[address]

    def close(self):
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()

    def call(self, attempt):
        """attempt(channel) once per try; returns its result, re-raises any error but
        UNAVAILABLE, raises LeaderNotFound after `give_up`."""
        deadline = time.monotonic() + self.give_up
        tried = {}
        attempts = 0
        failures = 0
        redirects = 0
        while True:
            address = self.address
            attempts += 1
            try:
                return attempt(self.channel())
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                self.failed_attempts += 1
                tried[address] = error.details()
                leader = leader_hint(error)
                if leader and leader not in self.addresses:
                    if len(self.addresses) < self.given + MAX_LEARNED:
                        self.addresses.append(leader)
                    else:
                        leader = None
                delay = 0.0
                if leader:
                    self.current = self.addresses.index(leader)
                    redirects += 1
                    # Replicas pointing at each other (an election) wait like failures.
                    bounced = redirects > len(self.addresses)
                else:
                    redirects = 0
                    self.current = (self.current + 1) % len(self.addresses)
                    bounced = True
                if bounced:
                    delay = random.uniform(0, min(self.backoff_cap, self.backoff_base * 2 ** failures))
                    failures += 1
                if attempts >= len(self.addresses) and time.monotonic() + delay > deadline:
                    raise LeaderNotFound(self.give_up, tried) from error
                self.waited += delay
                time.sleep(delay)
