// Taskboard's OTLP exporter checked with real OpenTelemetry code that no one
// here wrote (docs/observability.md#how-it-is-tested):
//
// - A small OTLP/HTTP receiver decodes each POST /v1/traces body with the
//   official OTLP protobuf definitions as compiled into
//   @opentelemetry/otlp-transformer (its generated root.js), and checks the
//   spans the C++ program otel_probe exported: names, ids, parent links,
//   kinds, attributes of every type, events, status, resource.
// - A Node client instrumented with @opentelemetry/sdk-trace-base makes a
//   span, and @opentelemetry/core's W3C propagator writes its traceparent and
//   tracestate; otel_probe makes its spans children of it. The Node span is
//   exported to the same receiver by otlp-transformer's own serializer, so
//   the receiver checks the parent-child link across the two SDKs.
//
// Needs OTEL_PROBE (the otel_probe binary; CTest sets it) and this folder's
// node_modules as package-lock.json pins them (scripts/install-deps.sh --test
// runs `npm ci` here).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';

import {
  OtlpProtobufExporter,
  OtlpReceiver,
  STATUS_CODE_ERROR,
  STATUS_CODE_OK,
  SPAN_KIND_CLIENT,
  SPAN_KIND_SERVER,
  attributes,
  hex,
  load,
} from './otlp_receiver.mjs';

const {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  SimpleSpanProcessor,
} = load('@opentelemetry/sdk-trace-base');
const { TraceState, W3CTraceContextPropagator } = load('@opentelemetry/core');
const api = load('@opentelemetry/api');

const PROBE = process.env.OTEL_PROBE;

// ---- the receiver -------------------------------------------------------

let receiver;
let endpoint;
let received; // { resource, scope, span } per span, in arrival order
let rawRequests; // { path, contentType }

before(async () => {
  assert.ok(PROBE, 'OTEL_PROBE must name the otel_probe binary (CTest sets it)');
  receiver = await new OtlpReceiver().start();
  endpoint = receiver.endpoint;
  received = receiver.received;
  rawRequests = receiver.rawRequests;
});

after(() => receiver?.close());

function spansNamed(name, traceId) {
  return receiver.named(name, traceId);
}

// ---- the C++ program ----------------------------------------------------

function runProbe(args, extraEnv = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(PROBE, args, {
      env: {
        PATH: process.env.PATH,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'otel-probe',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=interop,team=a%2Cb',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data) => (stdout += data));
    child.stderr.on('data', (data) => (stderr += data));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`otel_probe exited ${code}: ${stderr}${stdout}`));
        return;
      }
      resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

// ---- the Node client ----------------------------------------------------

function nodeTracer(sampler) {
  const provider = new BasicTracerProvider({
    sampler,
    spanProcessors: [new SimpleSpanProcessor(new OtlpProtobufExporter(endpoint))],
  });
  return { provider, tracer: provider.getTracer('node-client', '1.0.0') };
}

// The headers the W3C propagator writes for `span`.
function injectHeaders(span) {
  const carrier = {};
  new W3CTraceContextPropagator().inject(
    api.trace.setSpan(api.ROOT_CONTEXT, span),
    carrier,
    api.defaultTextMapSetter,
  );
  return carrier;
}

// A span of the Node SDK under a remote parent that carries a tracestate, so
// the propagator writes one.
function startNodeSpan(tracer, name) {
  const remote = api.trace.setSpanContext(api.ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: api.TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7'),
  });
  return tracer.startSpan(name, { kind: api.SpanKind.CLIENT }, remote);
}

// ---- the tests ----------------------------------------------------------

test('a C++ span joins the trace of a Node SDK span through traceparent and tracestate', async () => {
  const { provider, tracer } = nodeTracer(new AlwaysOnSampler());
  const nodeSpan = startNodeSpan(tracer, 'client.submit');
  const headers = injectHeaders(nodeSpan);
  assert.match(headers.traceparent, /^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
  assert.equal(headers.tracestate, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');

  const printed = await runProbe(['--traceparent', headers.traceparent, '--tracestate', headers.tracestate]);
  nodeSpan.end();
  await provider.forceFlush();

  const traceId = nodeSpan.spanContext().traceId;
  const nodeSpanId = nodeSpan.spanContext().spanId;
  assert.equal(printed.trace_id, traceId);
  assert.equal(printed.sampled, true);
  assert.equal(printed.exported, 2);

  // Both SDKs' spans, as the receiver decoded them.
  const [node] = spansNamed('client.submit', traceId);
  const [work] = spansNamed('probe.work', traceId);
  const [child] = spansNamed('probe.child', traceId);
  assert.ok(node && work && child, `spans received: ${received.map((e) => e.span.name)}`);
  assert.equal(hex(node.span.spanId), nodeSpanId);
  assert.equal(hex(work.span.parentSpanId), hex(node.span.spanId), 'C++ span under the Node span');
  assert.equal(hex(work.span.spanId), printed.work_span_id);
  assert.equal(hex(child.span.parentSpanId), hex(work.span.spanId));
  assert.equal(hex(child.span.spanId), printed.child_span_id);
  assert.equal(work.span.traceState, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
  // Sampled; the parent is known to be remote for the work span only.
  assert.equal(work.span.flags & 0x3ff, 0x301);
  assert.equal(child.span.flags & 0x3ff, 0x101);

  // The C++ process's resource and scope.
  assert.equal(work.resource['service.name'], 'otel-probe');
  assert.equal(work.resource['deployment.environment'], 'interop');
  assert.equal(work.resource.team, 'a,b');
  assert.equal(work.resource['telemetry.sdk.language'], 'cpp');
  assert.equal(work.scope.name, 'taskboard');
  assert.notEqual(node.resource['service.name'], 'otel-probe');

  // Kinds, attributes of every type, the event, statuses, times.
  assert.equal(work.span.kind, SPAN_KIND_SERVER);
  assert.equal(child.span.kind, SPAN_KIND_CLIENT);
  assert.deepEqual(attributes(work.span.attributes), {
    'probe.string': 'hello',
    'probe.int': 42n,
    'probe.double': 2.5,
    'probe.bool': true,
    'probe.array': ['a', 'b'],
  });
  assert.equal(work.span.events.length, 1);
  assert.equal(work.span.events[0].name, 'probe.event');
  assert.deepEqual(attributes(work.span.events[0].attributes), { 'probe.step': 1n });
  assert.equal(work.span.status.code, STATUS_CODE_OK);
  assert.equal(child.span.status.code, STATUS_CODE_ERROR);
  assert.equal(child.span.status.message, 'probe failure');
  const now = BigInt(Date.now()) * 1_000_000n;
  for (const { span } of [work, child]) {
    const start = BigInt(span.startTimeUnixNano);
    const end = BigInt(span.endTimeUnixNano);
    assert.ok(start <= end, 'start before end');
    assert.ok(now - start < 60_000_000_000n, 'started within the last minute');
  }

  // What went over the wire.
  assert.ok(rawRequests.every((r) => r.path === '/v1/traces'));
  assert.ok(rawRequests.every((r) => r.contentType === 'application/x-protobuf'));
  // The traceparent the C++ side would send on names its own span.
  assert.equal(printed.traceparent, `00-${traceId}-${printed.work_span_id}-01`);
  await provider.shutdown();
});

test('an unsampled Node SDK parent makes the C++ side record nothing', async () => {
  const { provider, tracer } = nodeTracer(new AlwaysOffSampler());
  const nodeSpan = tracer.startSpan('client.unsampled');
  const headers = injectHeaders(nodeSpan);
  assert.match(headers.traceparent, /-00$/);
  const before = received.length;

  const printed = await runProbe(['--traceparent', headers.traceparent]);
  nodeSpan.end();
  await provider.forceFlush();

  assert.equal(printed.sampled, false);
  assert.equal(printed.trace_id, nodeSpan.spanContext().traceId);
  assert.equal(printed.exported, 0);
  // The probe flushed before it exited: nothing of its trace arrived.
  assert.equal(spansNamed('probe.work', printed.trace_id).length, 0);
  assert.equal(received.length, before);
  // It would still pass the trace on, unsampled.
  assert.match(printed.traceparent, new RegExp(`^00-${printed.trace_id}-[0-9a-f]{16}-00$`));
  await provider.shutdown();
});

test('without a valid traceparent the C++ side starts a trace of its own', async () => {
  for (const traceparent of [undefined, '00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01']) {
    const printed = await runProbe(traceparent ? ['--traceparent', traceparent] : []);
    assert.equal(printed.exported, 2);
    assert.notEqual(printed.trace_id, '0af7651916cd43dd8448eb211c80319c');
    const [work] = spansNamed('probe.work', printed.trace_id);
    assert.ok(work, 'the root span arrived');
    assert.equal(work.span.parentSpanId ?? '', '', 'a root span has no parent');
    assert.equal(work.span.flags & 0x3ff, 0x101);
    assert.match(hex(work.span.traceId), /^[0-9a-f]{32}$/);
    assert.doesNotMatch(hex(work.span.traceId), /^0+$/);
    assert.match(hex(work.span.spanId), /^[0-9a-f]{16}$/);
  }
});

test('the ratio sampler decides by trace id: a run is sampled everywhere or nowhere', async () => {
  // Many probe processes, each deciding on its own with a ratio, agree with
  // each other for the same trace: every trace is complete or absent.
  const traceIds = new Set();
  for (let i = 0; i < 6; i += 1) {
    const root = await runProbe([], { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' });
    const again = await runProbe(['--traceparent', `00-${root.trace_id}-00f067aa0ba902b7-01`], {
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.5',
    });
    assert.equal(again.sampled, root.sampled, `trace ${root.trace_id}`);
    traceIds.add(root.trace_id);
  }
  assert.equal(traceIds.size, 6);
});
