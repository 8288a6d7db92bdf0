// Calls to replicated Taskboard schedulers that follow the leader.
//
// A scheduler replica that does not lead answers every call UNAVAILABLE with the trailer
// `taskboard-leader: HOST:PORT` (docs/operations.md, "Clients and replicated schedulers").
// LeaderChannel keeps one client per address, makes each call on the one it believes leads,
// goes to the named leader at once, and moves past an address that cannot be reached after a
// capped, jittered exponential backoff, until `giveUpMs` has passed (every address is tried at
// least once):
//
//   const leader = new LeaderChannel('sched-0:7233,sched-1:7233', (address) =>
//     new v1.Scheduler(address, grpc.credentials.createInsecure()));
//   const { run } = await leader.call((client) => unary(client, 'GetRun', { run_id }));
//
// A hint is bounded like the CLI's (common/failover): at most 8 addresses learned from hints,
// none over 270 bytes, so replicas naming ever new leaders cannot grow the list. A call that
// creates something should carry an idempotency key (SubmitRunRequest.idempotency_key): an
// attempt cut off by a dying leader may have taken effect.
'use strict';

const LEADER_KEY = 'taskboard-leader';
const UNAVAILABLE = 14;
const MAX_LEARNED = 8;
const MAX_HINT_BYTES = 270;

class LeaderNotFound extends Error {
  constructor(giveUpMs, tried) {
    const answers = [...tried].map(([address, answer]) => `${address} (${answer})`).join(', ');
    super(`no scheduler answered as the leader within ${giveUpMs / 1000}s; tried ${answers}`);
    this.name = 'LeaderNotFound';
    this.tried = new Map(tried);
  }
}

// The leader a NotLeader answer names (its trailer), or null.
function leaderHint(error) {
  const values = error?.metadata?.get?.(LEADER_KEY) ?? [];
  const hint = values.length > 0 ? String(values[0]) : '';
  return hint !== '' && Buffer.byteLength(hint) <= MAX_HINT_BYTES && !/\s/.test(hint)
    ? hint
    : null;
}

function parseAddresses(addresses) {
  const list = (Array.isArray(addresses) ? addresses : String(addresses).split(','))
    .map((address) => String(address).trim());
  if (list.length === 0 || list.some((address) => address === '')) {
    throw new Error(`scheduler addresses '${addresses}': give host:port[,host:port...]`);
  }
  return [...new Set(list)];
}

class LeaderChannel {
  // makeClient(address) returns a client (a generated service client, or a grpc.Client) that
  // call() hands to each attempt; it must have close().
  constructor(addresses, makeClient, { giveUpMs = 11000, backoffBaseMs = 100, backoffCapMs = 2000 } = {}) {
    this.addresses = parseAddresses(addresses);
    this.given = this.addresses.length;
    this.current = 0;
    this.giveUpMs = giveUpMs;
    this.backoffBaseMs = backoffBaseMs;
    this.backoffCapMs = backoffCapMs;
    this.failedAttempts = 0; // over the channel's life, for tests and logs
    this.makeClient = makeClient;
    this.clients = new Map();
  }

  get address() {
    return this.addresses[this.current];
  }

  // The client of the address believed to lead.
  client() {
    const { address } = this;
    if (!this.clients.has(address)) this.clients.set(address, this.makeClient(address));
    return this.clients.get(address);
  }

  close() {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  // Follows a hint: the index of `leader`, learning it when there is room.
  follow(leader) {
    let index = this.addresses.indexOf(leader);
    if (index < 0 && this.addresses.length < this.given + MAX_LEARNED) {
      this.addresses.push(leader);
      index = this.addresses.length - 1;
    }
    return index;
  }

  // attempt(client) once per try (a promise); resolves with its result, rejects with any error
  // but UNAVAILABLE, or with LeaderNotFound after giveUpMs.
  async call(attempt) {
    const deadline = Date.now() + this.giveUpMs;
    const tried = new Map();
    let attempts = 0;
    let failures = 0;
    let redirects = 0;
    for (;;) {
      const { address } = this;
      attempts += 1;
      try {
        return await attempt(this.client());
      } catch (error) {
        if (error?.code !== UNAVAILABLE) throw error;
        this.failedAttempts += 1;
        tried.set(address, error.details ?? error.message);
        const leader = leaderHint(error);
        const index = leader === null ? -1 : this.follow(leader);
        let bounced;
        if (index >= 0) {
          this.current = index;
          redirects += 1;
          // Replicas pointing at each other (an election) wait like failures.
          bounced = redirects > this.addresses.length;
        } else {
          redirects = 0;
          this.current = (this.current + 1) % this.addresses.length;
          bounced = true;
        }
        let delay = 0;
        if (bounced) {
          delay = Math.random() * Math.min(this.backoffCapMs, this.backoffBaseMs * 2 ** failures);
          failures += 1;
        }
        if (attempts >= this.addresses.length && Date.now() + delay > deadline) {
          throw new LeaderNotFound(this.giveUpMs, tried);
        }
        await new Promise((resolve) => { setTimeout(resolve, delay); });
      }
    }
  }
}

module.exports = { LeaderChannel, LeaderNotFound, leaderHint, parseAddresses, LEADER_KEY };
