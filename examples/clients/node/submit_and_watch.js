#!/usr/bin/env node
// Submits a two-step flow to a Taskboard scheduler, prints its events, then its result.
//
// The Node.js twin of examples/clients/python/submit_and_watch.py: SubmitRun with inline DSL
// text, WatchRun until the run finishes, GetRun for the result. No generated code:
// @grpc/proto-loader reads proto/taskboard/v1 at start-up (protobufjs ships the well-known
// types). --address takes one scheduler or several replicas (a,b,c): the calls follow the
// leader (leader_channel.js). Exit status: 0 when the run completed, 1 when it ended any
// other way, 2 when a call failed.
'use strict';

const crypto = require('crypto');
const path = require('path');
const { parseArgs } = require('util');

const { LeaderChannel } = require('./leader_channel');

let grpc;
let protoLoader;
try {
  grpc = require('@grpc/grpc-js');
  protoLoader = require('@grpc/proto-loader');
} catch (error) {
  console.error(`cannot load @grpc/grpc-js and @grpc/proto-loader (${error.message}): run ` +
                '`npm install --prefix examples/clients/node --no-package-lock` ' +
                '(or scripts/install-deps.sh --test)');
  process.exit(2);
}

const { values: flags } = parseArgs({
  options: {
    address: { type: 'string', default: '127.0.0.1:7233' },
    agent: { type: 'string', default: 'noop' },
    greeting: { type: 'string', default: 'hello from node' },
    proto: { type: 'string', default: path.join(__dirname, '..', '..', '..', 'proto') },
    timeout: { type: 'string', default: '60' },
  },
});

// Step 2 receives step 1's output through {previous.output}: the result proves both ran.
function twoStepFlow(agent, greeting) {
  return JSON.stringify({
    name: 'polyglot-node',
    chain: [
      { agent, task: greeting },
      { agent, task: 'second step saw: {previous.output}' },
    ],
  });
}

// One line per RunEvent, named after the oneof case the scheduler set (enums load as names).
function describe(event) {
  const kind = event.event;
  let detail = '';
  switch (kind) {
    case 'run_started': detail = event.run_started.status; break;
    case 'task_change': detail = `${event.task_change.task.task_id} ${event.task_change.task.state}`; break;
    // The tasks a step added, each as a task_change would carry it.
    case 'tasks_created':
      detail = [event.tasks_created.tasks.length,
        ...event.tasks_created.tasks.map((task) => `${task.task_id} ${task.state}`)].join(' ');
      break;
    case 'phase_change': detail = `${event.phase_change.phase.phase_id} ${event.phase_change.phase.state}`; break;
    case 'output_delta': detail = `${event.output_delta.task_id} ${event.output_delta.text.length} bytes`; break;
    case 'run_finished': detail = event.run_finished.status; break;
    default: break;
  }
  return `event ${event.seq} ${kind} ${detail}`.trimEnd();
}

function deadline() {
  return new Date(Date.now() + Number(flags.timeout) * 1000);
}

function call(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, { deadline: deadline(), waitForReady: true }, (error, response) =>
      (error ? reject(error) : resolve(response)));
  });
}

// Resolves once the scheduler ends the stream (after run_finished).
function watch(client, runId) {
  return new Promise((resolve, reject) => {
    const stream = client.WatchRun({ run_id: runId }, { deadline: deadline() });
    stream.on('data', (response) => console.log(describe(response.event)));
    stream.on('error', reject);
    stream.on('end', resolve);
  });
}

async function main() {
  const definition = protoLoader.loadSync('taskboard/v1/scheduler.proto', {
    includeDirs: [flags.proto],
    keepCase: true,
    enums: String,
    longs: String,
    defaults: true,
    oneofs: true,
  });
  const v1 = grpc.loadPackageDefinition(definition).taskboard.v1;
  const leader = new LeaderChannel(flags.address,
    (address) => new v1.Scheduler(address, grpc.credentials.createInsecure()));
  try {
    // The key makes a retried submit (a leader died mid-call) start one run, not two.
    const submitted = await leader.call((client) => call(client, 'SubmitRun', {
      source: { text: twoStepFlow(flags.agent, flags.greeting), format: 'DSL_FORMAT_JSON' },
      idempotency_key: crypto.randomUUID(),
    }));
    console.log(`submitted run ${submitted.run_id}`);
    await leader.call((client) => watch(client, submitted.run_id));
    const { run } = await leader.call((client) => call(client, 'GetRun', { run_id: submitted.run_id }));
    console.log(`result: ${run.status}`);
    console.log(`output: ${run.output}`);
    if (run.error) console.log(`error: ${run.error}`);
    return run.status === 'RUN_STATUS_COMPLETED' ? 0 : 1;
  } catch (error) {
    const code = Object.keys(grpc.status).find((name) => grpc.status[name] === error.code);
    console.error(`error: ${code ?? error.name}: ${error.details ?? error.message} ` +
                  `(scheduler ${flags.address})`);
    return 2;
  } finally {
    leader.close();
  }
}

main().then((code) => { process.exitCode = code; });
