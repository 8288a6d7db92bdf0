"""leader_channel.py against in-process gRPC servers on loopback ports: a replica that
does not lead (UNAVAILABLE with the `taskboard-leader` trailer) sends the call to the
leader at once; a dead address is skipped; giving up names every address."""

import os
import socket
import sys
import unittest
from concurrent import futures

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from leader_channel import LeaderChannel, LeaderNotFound  # noqa: E402

METHOD = "/taskboard.v1.Scheduler/ListRuns"


class Replica:
    """Answers METHOD with b"ok" as the leader, or as a follower naming `leader`
    (None: no leader elected yet). Messages are raw bytes: no stubs needed."""

    def __init__(self, leader=None, leads=False):
        self.calls = 0

        def handle(request, context):
            self.calls += 1
            if leads:
                return b"ok"
            named = leader() if callable(leader) else leader
            if named is None:
                context.abort(grpc.StatusCode.UNAVAILABLE, "no leader elected yet; retry")
            context.set_trailing_metadata((("taskboard-leader", named),))
            context.abort(grpc.StatusCode.UNAVAILABLE,
                          f"not the leader; the leader is at {named} (epoch 2)")

        handler = grpc.method_handlers_generic_handler(
            "taskboard.v1.Scheduler", {"ListRuns": grpc.unary_unary_rpc_method_handler(handle)})
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2), handlers=(handler,))
        self.address = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"
        self.server.start()

    def stop(self):
        self.server.stop(None)


def dead_address():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"127.0.0.1:{sock.getsockname()[1]}"


def list_runs(channel):
    return channel.unary_unary(METHOD)(b"", timeout=5)


class LeaderChannelTest(unittest.TestCase):
    def test_not_leader_follows_the_trailer_without_waiting(self):
        leader = Replica(leads=True)
        follower = Replica(leader=leader.address)
        channel = LeaderChannel(f"{follower.address},{leader.address}", backoff_base=3600)
        try:
            self.assertEqual(channel.call(list_runs), b"ok")
            self.assertEqual(follower.calls, 1)
            self.assertEqual(channel.failed_attempts, 1)
            self.assertEqual(channel.waited, 0)
            self.assertEqual(channel.address, leader.address)
        finally:
            channel.close()
            follower.stop()
            leader.stop()

    def test_leader_missing_from_the_list_is_added(self):
        leader = Replica(leads=True)
        follower = Replica(leader=leader.address)
        channel = LeaderChannel(follower.address, backoff_base=3600)
        try:
            self.assertEqual(channel.call(list_runs), b"ok")
            self.assertEqual(channel.addresses, [follower.address, leader.address])
        finally:
            channel.close()
            follower.stop()
            leader.stop()

    def test_dead_first_address_is_skipped(self):
        leader = Replica(leads=True)
        channel = LeaderChannel(f"{dead_address()},{leader.address}", backoff_base=0.01)
        try:
            self.assertEqual(channel.call(list_runs), b"ok")
        finally:
            channel.close()
            leader.stop()

    def test_nobody_leads_gives_up_naming_every_address(self):
        dead = dead_address()
        electing = Replica(leader=None)
        channel = LeaderChannel(f"{dead},{electing.address}", give_up=0.5, backoff_base=0.01)
        try:
            with self.assertRaises(LeaderNotFound) as raised:
                channel.call(list_runs)
            self.assertEqual(set(raised.exception.tried), {dead, electing.address})
            self.assertIn(f"{electing.address} (no leader elected yet; retry)",
                          str(raised.exception))
        finally:
            channel.close()
            electing.stop()

    def test_other_errors_are_not_retried(self):
        def fails(channel):
            raise_not_found = channel.unary_unary("/taskboard.v1.Scheduler/Nope")
            return raise_not_found(b"", timeout=5)

        leader = Replica(leads=True)
        channel = LeaderChannel(leader.address)
        try:
            with self.assertRaises(grpc.RpcError) as raised:
                channel.call(fails)
            self.assertEqual(raised.exception.code(), grpc.StatusCode.UNIMPLEMENTED)
            self.assertEqual(channel.failed_attempts, 0)
        finally:
            channel.close()
            leader.stop()

    def test_ever_new_hints_are_bounded(self):
        count = iter(range(1, 60000))
        # Each answer names a leader nobody has heard of (a hostile or confused replica).
        liar = Replica(leader=lambda: f"127.0.0.1:{next(count)}")
        channel = LeaderChannel(liar.address, give_up=1.5, backoff_base=0.001, backoff_cap=0.02)
        try:
            with self.assertRaises(LeaderNotFound) as raised:
                channel.call(list_runs)
            self.assertIn(liar.address, raised.exception.tried)
            self.assertLessEqual(len(channel.addresses), 1 + 8)
        finally:
            channel.close()
            liar.stop()


if __name__ == "__main__":
    unittest.main()
