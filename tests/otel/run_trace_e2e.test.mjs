// One agent run followed from the service that submitted it to the LLM call
// and the tool call a worker made, with real OpenTelemetry code that no one
// here wrote (docs/observability.md#how-it-is-tested):
//
// - A Node client instrumented with @opentelemetry/sdk-trace-base submits a
//   run over gRPC (@grpc/grpc-js and @grpc/proto-loader, as installed for
//   examples/clients/node) with its span's traceparent, written by
//   @opentelemetry/core's W3C propagator, as metadata.
// - A real taskboard-scheduler and taskboard-worker export to an OTLP/HTTP
//   receiver decoding with otlp-transformer's compiled OTLP definitions.
//   The worker's llm agent talks to tools/fake-llm, whose script makes each
//   of two tasks call read_file once (cacheable): the first pays, the
//   second is served from the scheduler's cache.
// - The receiver checks that every span joins the client's trace with the
//   right parents, that the GenAI attributes equal the fake LLM's usage and
//   that the tool spans' cache outcomes are miss, then hit naming the task
//   that paid.
//
// Needs TASKBOARD_SCHEDULER, TASKBOARD_WORKER and FAKE_LLM (the binaries;
// CTest sets them), this folder's node_modules and
// examples/clients/node/node_modules (scripts/install-deps.sh --test).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import {
  OtlpProtobufExporter,
  OtlpReceiver,
  SPAN_KIND_CLIENT,
  SPAN_KIND_CONSUMER,
  SPAN_KIND_PRODUCER,
  STATUS_CODE_OK,
  attributes,
  hex,
  load,
} from './otlp_receiver.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const source = path.resolve(here, '..', '..');
// The example client's gRPC packages, where install-deps.sh puts them.
const clientRequire = createRequire(path.join(source, 'examples/clients/node/package.json'));
const grpc = load('@grpc/grpc-js', clientRequire);
const protoLoader = load('@grpc/proto-loader', clientRequire);
const { AlwaysOnSampler, BasicTracerProvider, SimpleSpanProcessor } = load('@opentelemetry/sdk-trace-base');
const { W3CTraceContextPropagator } = load('@opentelemetry/core');
const api = load('@opentelemetry/api');

const SCHEDULER = process.env.TASKBOARD_SCHEDULER;
const WORKER = process.env.TASKBOARD_WORKER;
const FAKE_LLM = process.env.FAKE_LLM;
const MODEL = 'fake-model';

// Each task asks for read_file first, then answers once it has the result;
// the usage numbers are what the chat spans must carry.
const SCRIPT = `rules:
  - name: read-first
    match: {has_tool_results: false}
    respond:
      tool_calls:
        - name: read_file
          arguments: {path: notes.md}
      usage: {prompt_tokens: 111, completion_tokens: 7}
  - name: answer
    match: {tool_result_contains: remember}
    respond:
      content: "The notes say: remember the milk"
      usage: {prompt_tokens: 222, completion_tokens: 13}
`;

const FLOW = JSON.stringify({
  name: 'traced-llm',
  phases: [
    { id: 'first', agent: 'researcher', task: 'What do the notes say?' },
    { id: 'second', agent: 'researcher', task: 'Check the notes again.', dependsOn: ['first'] },
  ],
});

const work = mkdtempSync(path.join(tmpdir(), 'taskboard-otel-e2e-'));
const children = [];
let receiver;
let scheduler;

function logs() {
  return children
    .map(({ name, log }) => {
      let text = '';
      try {
        text = readFileSync(log, 'utf8').split('\n').slice(-30).join('\n');
      } catch {
        text = '(no log)';
      }
      return `----- ${name}\n${text}`;
    })
    .join('\n');
}

function startProcess(name, argv, env = {}) {
  const log = path.join(work, `${name}.log`);
  const fd = openSync(log, 'w');
  const child = spawn(argv[0], argv.slice(1), {
    env: { PATH: process.env.PATH, OTEL_BSP_SCHEDULE_DELAY: '100', ...env },
    stdio: ['ignore', fd, fd],
    cwd: work,
  });
  closeSync(fd);
  // A binary that cannot start shows as an exit (waitForPort reports it).
  child.on('error', (error) => {
    writeFileSync(log, `cannot start ${argv[0]}: ${error.message}\n`, { flag: 'a' });
  });
  children.push({ name, child, log });
  return child;
}

// Waits until `file` holds a port, or fails when `child` exits first.
async function waitForPort(child, file, name) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited ${child.exitCode}:\n${logs()}`);
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8').trim();
      if (/^\d+$/.test(text)) return Number(text);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${name} wrote no port to ${file} within 30 s:\n${logs()}`);
}

async function stopAll() {
  // The worker first (it drains), then the scheduler, then the model.
  for (const { child } of [...children].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

before(async () => {
  assert.ok(SCHEDULER && WORKER && FAKE_LLM, 'TASKBOARD_SCHEDULER, TASKBOARD_WORKER and FAKE_LLM must be set (CTest sets them)');
  receiver = await new OtlpReceiver().start();

  writeFileSync(path.join(work, 'script.yaml'), SCRIPT);
  const llm = startProcess('fake-llm', [FAKE_LLM, '--script', path.join(work, 'script.yaml'),
    '--port-file', path.join(work, 'llm.port')]);
  const llmPort = await waitForPort(llm, path.join(work, 'llm.port'), 'fake-llm');

  const agents = path.join(work, 'agents');
  mkdirSync(agents);
  writeFileSync(path.join(agents, 'researcher.md'),
    `---\nname: researcher\ntype: llm\nmodel: ${MODEL}\nbaseUrl: http://127.0.0.1:${llmPort}/v1\n` +
    'tools: [read_file]\n---\nYou read files before you answer.\n');
  writeFileSync(path.join(work, 'notes.md'), 'remember the milk\n');

  const schedulerProcess = startProcess('scheduler', [SCHEDULER, '--listen', '127.0.0.1:0',
    '--data-dir', path.join(work, 'data'), '--durability', 'wal',
    '--port-file', path.join(work, 'scheduler.port'), '--otlp-endpoint', receiver.endpoint,
    '--trace-sample-ratio', '0']);
  const port = await waitForPort(schedulerProcess, path.join(work, 'scheduler.port'), 'scheduler');
  const address = `127.0.0.1:${port}`;
  startProcess('worker', [WORKER, '--scheduler', address, '--agents', agents, '--slots', '1',
    '--worker-id', 'otel-worker', '--workspace-root', work, '--drain-grace-seconds', '5',
    '--otlp-endpoint', receiver.endpoint]);

  const definition = protoLoader.loadSync('taskboard/v1/scheduler.proto', {
    includeDirs: [path.join(source, 'proto')],
    keepCase: true,
    enums: String,
    longs: String,
    defaults: true,
    oneofs: true,
  });
  const v1 = grpc.loadPackageDefinition(definition).taskboard.v1;
  scheduler = new v1.Scheduler(address, grpc.credentials.createInsecure());
});

after(async () => {
  scheduler?.close();
  await stopAll();
  receiver?.close();
  rmSync(work, { recursive: true, force: true });
});

function call(method, request, metadata = new grpc.Metadata()) {
  return new Promise((resolve, reject) => {
    scheduler[method](request, metadata, { deadline: new Date(Date.now() + 60_000), waitForReady: true },
      (error, response) => (error ? reject(error) : resolve(response)));
  });
}

// Polls GetRun until the run is no longer running (the worker may take a
// while to connect: WatchRun would do, GetRun keeps the test short).
async function waitForRun(runId) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { run } = await call('GetRun', { run_id: runId });
    if (run.status !== 'RUN_STATUS_RUNNING' && run.status !== 'RUN_STATUS_PENDING') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run.status} after 90 s:\n${logs()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('a client span is the root of the scheduler\'s, the worker\'s, the LLM\'s and the tools\' spans', async () => {
  const provider = new BasicTracerProvider({
    sampler: new AlwaysOnSampler(),
    spanProcessors: [new SimpleSpanProcessor(new OtlpProtobufExporter(receiver.endpoint))],
  });
  const tracer = provider.getTracer('taskboard-e2e-client', '1.0.0');
  const clientSpan = tracer.startSpan('client.submit', { kind: api.SpanKind.CLIENT });
  const carrier = {};
  new W3CTraceContextPropagator().inject(api.trace.setSpan(api.ROOT_CONTEXT, clientSpan), carrier,
    api.defaultTextMapSetter);
  const metadata = new grpc.Metadata();
  metadata.set('traceparent', carrier.traceparent);

  // The scheduler's ratio is 0: only the caller's sampled flag records this run.
  const submitted = await call('SubmitRun', { source: { text: FLOW, format: 'DSL_FORMAT_JSON' } }, metadata);
  const run = await waitForRun(submitted.run_id);
  clientSpan.end();
  await provider.forceFlush();
  assert.equal(run.status, 'RUN_STATUS_COMPLETED', `${run.error}\n${logs()}`);

  const traceId = clientSpan.spanContext().traceId;
  const runId = submitted.run_id;
  const inTrace = () => receiver.received.filter((entry) => hex(entry.span.traceId) === traceId);
  const find = (service, name, where = () => true) => inTrace().filter(
    (entry) => entry.resource['service.name'] === service && entry.span.name === name && where(entry));
  const task = (id) => (entry) => attributes(entry.span.attributes)['taskboard.task_id'] === id;
  // Everything expected, once exported (each service's batch waits 100 ms).
  const expected = () => ({
    client: inTrace().filter((entry) => entry.span.name === 'client.submit'),
    run: find('taskboard-scheduler', 'run traced-llm'),
    phases: ['first', 'second'].map((id) => find('taskboard-scheduler', `phase ${id}`)),
    attempts: ['first', 'second'].map((id) => find('taskboard-scheduler', 'task.attempt', task(id))),
    workerAttempts: ['first', 'second'].map((id) => find('taskboard-worker', 'task.attempt', task(id))),
    chats: find('taskboard-worker', `chat ${MODEL}`),
    tools: find('taskboard-worker', 'execute_tool read_file'),
  });
  const spans = await receiver.waitFor(() => {
    const now = expected();
    const complete = now.client.length === 1 && now.run.length === 1 &&
      now.phases.every((list) => list.length === 1) && now.attempts.every((list) => list.length === 1) &&
      now.workerAttempts.every((list) => list.length === 1) && now.chats.length === 4 && now.tools.length === 2;
    return complete && now;
  }, 60_000, () => `spans of trace ${traceId}: ${inTrace().map((e) => `${e.resource['service.name']}/${e.span.name}`)}\n${logs()}`);

  const id = (entry) => hex(entry.span.spanId);
  const parent = (entry) => hex(entry.span.parentSpanId);
  const [client] = spans.client;
  const [runSpan] = spans.run;
  assert.equal(id(client), clientSpan.spanContext().spanId);
  assert.equal(parent(runSpan), id(client), 'the run under the client\'s span');
  assert.equal(attributes(runSpan.span.attributes)['taskboard.run_id'], runId);
  assert.equal(runSpan.span.status.code, STATUS_CODE_OK);

  const workerAttemptIds = new Map();
  for (const [index, taskId] of ['first', 'second'].entries()) {
    const [phase] = spans.phases[index];
    const [attempt] = spans.attempts[index];
    const [workerAttempt] = spans.workerAttempts[index];
    assert.equal(parent(phase), id(runSpan), `phase ${taskId} under the run`);
    assert.equal(parent(attempt), id(phase), `the attempt of ${taskId} under its phase`);
    assert.equal(attempt.span.kind, SPAN_KIND_PRODUCER);
    assert.equal(parent(workerAttempt), id(attempt), `the worker's attempt of ${taskId} under the scheduler's`);
    assert.equal(workerAttempt.span.kind, SPAN_KIND_CONSUMER);
    const workerAttributes = attributes(workerAttempt.span.attributes);
    assert.equal(workerAttributes['taskboard.run_id'], runId);
    assert.equal(workerAttributes['gen_ai.agent.name'], 'researcher');
    // The attempt's totals: both model calls of the task.
    assert.equal(workerAttributes['gen_ai.usage.input_tokens'], 111n + 222n);
    assert.equal(workerAttributes['gen_ai.usage.output_tokens'], 7n + 13n);
    workerAttemptIds.set(id(workerAttempt), taskId);
  }

  // Two model calls per task, each under its task's worker attempt, with
  // the fake's usage and finish reason; no prompt or completion text (the
  // worker was not asked to capture it).
  const chatsByTask = { first: [], second: [] };
  for (const chat of spans.chats) {
    const taskId = workerAttemptIds.get(parent(chat));
    assert.ok(taskId, `chat span ${id(chat)} is under a worker attempt`);
    assert.equal(chat.span.kind, SPAN_KIND_CLIENT);
    chatsByTask[taskId].push(attributes(chat.span.attributes));
  }
  for (const taskId of ['first', 'second']) {
    const calls = chatsByTask[taskId].sort((a, b) => Number(a['gen_ai.usage.input_tokens'] - b['gen_ai.usage.input_tokens']));
    assert.equal(calls.length, 2, `two model calls in ${taskId}`);
    for (const chat of calls) {
      assert.equal(chat['gen_ai.system'], 'openai');
      assert.equal(chat['gen_ai.operation.name'], 'chat');
      assert.equal(chat['gen_ai.request.model'], MODEL);
      assert.equal(chat['gen_ai.input.messages'], undefined, 'no prompt text without the flag');
      assert.equal(chat['gen_ai.output.messages'], undefined, 'no completion text without the flag');
    }
    assert.equal(calls[0]['gen_ai.usage.input_tokens'], 111n);
    assert.equal(calls[0]['gen_ai.usage.output_tokens'], 7n);
    assert.deepEqual(calls[0]['gen_ai.response.finish_reasons'], ['tool_calls']);
    assert.equal(calls[1]['gen_ai.usage.input_tokens'], 222n);
    assert.equal(calls[1]['gen_ai.usage.output_tokens'], 13n);
    assert.deepEqual(calls[1]['gen_ai.response.finish_reasons'], ['stop']);
  }

  // The first task's read_file paid; the second's was served from the cache,
  // naming the first.
  const tools = Object.fromEntries(spans.tools.map((tool) => [workerAttemptIds.get(parent(tool)), attributes(tool.span.attributes)]));
  assert.ok(tools.first && tools.second, 'one tool span under each worker attempt');
  assert.equal(tools.first['gen_ai.tool.name'], 'read_file');
  assert.equal(tools.first['taskboard.tool.cache'], 'miss');
  assert.equal(tools.second['taskboard.tool.cache'], 'hit');
  assert.equal(tools.second['taskboard.tool.source_run_id'], runId);
  assert.equal(tools.second['taskboard.tool.source_task_id'], 'first');

  await provider.shutdown();
});
