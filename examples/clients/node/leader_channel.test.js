// leader_channel.js against in-process @grpc/grpc-js servers on loopback ports: a replica that
// does not lead (UNAVAILABLE with the `taskboard-leader` trailer) sends the call to the leader
// at once; a dead address is skipped; hints are bounded; giving up names every address.
//   node --test examples/clients/node/leader_channel.test.js
'use strict';

const assert = require('node:assert/strict');
const net = require('node:net');
const { test } = require('node:test');
const grpc = require('@grpc/grpc-js');

const { LeaderChannel, LeaderNotFound } = require('./leader_channel');

const METHOD = '/taskboard.v1.Scheduler/ListRuns';
const raw = { path: METHOD, requestStream: false, responseStream: false,
  requestSerialize: (b) => b, requestDeserialize: (b) => b,
  responseSerialize: (b) => b, responseDeserialize: (b) => b };

// Answers METHOD with "ok" as the leader, or as a follower naming leader() (null: no leader
// elected yet). Raw bytes: no protos needed.
async function replica({ leads = false, leader = () => null } = {}) {
  const server = new grpc.Server();
  const state = { calls: 0 };
  server.addService({ ListRuns: raw }, {
    ListRuns: (call, callback) => {
      state.calls += 1;
      if (leads) return callback(null, Buffer.from('ok'));
      const metadata = new grpc.Metadata();
      const named = leader();
      if (named !== null) metadata.set('taskboard-leader', named);
      return callback({ code: grpc.status.UNAVAILABLE, metadata,
        details: named === null ? 'no leader elected yet; retry'
          : `not the leader; the leader is at ${named} (epoch 2)` });
    },
  });
  const port = await new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return { state, address: `127.0.0.1:${port}`, stop: () => server.forceShutdown() };
}

async function deadAddress() {
  const server = net.createServer();
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  const { port } = server.address();
  await new Promise((resolve) => { server.close(resolve); });
  return `127.0.0.1:${port}`;
}

const makeClient = (address) => new grpc.Client(address, grpc.credentials.createInsecure());
const listRuns = (client) => new Promise((resolve, reject) => {
  client.makeUnaryRequest(METHOD, (b) => b, (b) => b, Buffer.alloc(0),
    { deadline: Date.now() + 5000 }, (error, response) => (error ? reject(error) : resolve(response)));
});

test('NotLeader_FollowsTheTrailerWithoutWaiting', async () => {
  const leader = await replica({ leads: true });
  const follower = await replica({ leader: () => leader.address });
  const channel = new LeaderChannel(`${follower.address},${leader.address}`, makeClient,
    { backoffBaseMs: 3_600_000 });
  try {
    const started = Date.now();
    assert.equal(String(await channel.call(listRuns)), 'ok');
    assert.ok(Date.now() - started < 3000, 'a redirect must not back off');
    assert.equal(channel.address, leader.address);
    assert.equal(follower.state.calls, 1);
    // The next call goes straight to the leader.
    await channel.call(listRuns);
    assert.equal(follower.state.calls, 1);
    assert.equal(leader.state.calls, 2);
  } finally {
    channel.close(); leader.stop(); follower.stop();
  }
});

test('LeaderNamedOnlyByTheHint_IsLearned', async () => {
  const leader = await replica({ leads: true });
  const follower = await replica({ leader: () => leader.address });
  const channel = new LeaderChannel([follower.address], makeClient);
  try {
    assert.equal(String(await channel.call(listRuns)), 'ok');
    assert.deepEqual(channel.addresses, [follower.address, leader.address]);
  } finally {
    channel.close(); leader.stop(); follower.stop();
  }
});

test('DeadAddress_IsSkipped', async () => {
  const leader = await replica({ leads: true });
  const channel = new LeaderChannel([await deadAddress(), leader.address], makeClient,
    { backoffBaseMs: 1 });
  try {
    assert.equal(String(await channel.call(listRuns)), 'ok');
    assert.ok(channel.failedAttempts >= 1);
  } finally {
    channel.close(); leader.stop();
  }
});

test('EverNewHints_AreBoundedAndTheCallGivesUpNamingEveryAddress', async () => {
  let n = 0;
  // Each answer names a leader nobody has heard of (a hostile or confused replica).
  const liar = await replica({ leader: () => `127.0.0.1:${1 + (n++ % 60000)}` });
  const channel = new LeaderChannel([liar.address], makeClient,
    { giveUpMs: 1500, backoffBaseMs: 1, backoffCapMs: 20 });
  try {
    await assert.rejects(channel.call(listRuns), (error) => {
      assert.ok(error instanceof LeaderNotFound, String(error));
      assert.match(error.message, /no scheduler answered as the leader within 1\.5s; tried /);
      assert.ok(error.tried.has(liar.address));
      return true;
    });
    assert.ok(channel.addresses.length <= 1 + 8, `learned ${channel.addresses.length - 1}`);
  } finally {
    channel.close(); liar.stop();
  }
});

test('OtherErrors_AreNotRetried', async () => {
  const server = new grpc.Server();
  let calls = 0;
  server.addService({ ListRuns: raw }, {
    ListRuns: (call, callback) => { calls += 1; callback({ code: grpc.status.NOT_FOUND, details: 'no run' }); },
  });
  const port = await new Promise((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  const channel = new LeaderChannel([`127.0.0.1:${port}`], makeClient);
  try {
    await assert.rejects(channel.call(listRuns), (error) => error.code === grpc.status.NOT_FOUND);
    assert.equal(calls, 1);
  } finally {
    channel.close(); server.forceShutdown();
  }
});

test('BadAddresses_AreRefused', () => {
  assert.throws(() => new LeaderChannel('a:1,,b:2', makeClient), /give host:port/);
  assert.throws(() => new LeaderChannel('', makeClient), /give host:port/);
});
