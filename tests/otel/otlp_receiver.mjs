// What the Node OTel tests share (docs/observability.md#how-it-is-tested):
// the pinned packages checked against package-lock.json, an OTLP/HTTP
// receiver that decodes each POST /v1/traces body with the official OTLP
// protobuf definitions compiled into @opentelemetry/otlp-transformer, and a
// SpanExporter for @opentelemetry/sdk-trace-base that sends the Node SDK's
// spans to it through otlp-transformer's own serializer.

import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// The packages installed must be the ones package-lock.json pins, so a stale
// node_modules cannot pass for the pinned OpenTelemetry code.
function checkInstalledAgainstLock() {
  const lock = JSON.parse(readFileSync(new URL('./package-lock.json', import.meta.url), 'utf8'));
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/')) continue;
    let installed;
    try {
      installed = JSON.parse(readFileSync(new URL(`./${path}/package.json`, import.meta.url), 'utf8')).version;
    } catch {
      installed = 'missing';
    }
    if (installed !== entry.version) {
      throw new Error(
        `tests/otel/${path} is ${installed}, package-lock.json pins ${entry.version}: ` +
          'run scripts/install-deps.sh --test',
      );
    }
  }
}
checkInstalledAgainstLock();

export function load(name, from = require) {
  try {
    return from(name);
  } catch (error) {
    throw new Error(`${name} is missing: run scripts/install-deps.sh --test (${error.message})`);
  }
}

const otlpRoot = load('@opentelemetry/otlp-transformer/build/src/generated/root');
const { ProtobufTraceSerializer } = load('@opentelemetry/otlp-transformer');
const { ExportResultCode } = load('@opentelemetry/core');

const ExportTraceServiceRequest =
  otlpRoot.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export const SPAN_KIND_INTERNAL = 1;
export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;
export const SPAN_KIND_PRODUCER = 4;
export const SPAN_KIND_CONSUMER = 5;
export const STATUS_CODE_OK = 1;
export const STATUS_CODE_ERROR = 2;

export function hex(base64) {
  return Buffer.from(base64 ?? '', 'base64').toString('hex');
}

// An AnyValue as plain JS: strings, numbers (int64 as BigInt), booleans, arrays.
function anyValue(value) {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return BigInt(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

export function attributes(list) {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

function decode(body) {
  const message = ExportTraceServiceRequest.decode(body);
  return ExportTraceServiceRequest.toObject(message, { longs: String, bytes: String });
}

// An OTLP/HTTP receiver on 127.0.0.1, port 0. `received` holds
// { resource, scope, span } per span in arrival order (span as the official
// decoder gives it: ids base64, times as strings); `rawRequests` the path
// and content type of each request. A body that does not decode is a 400.
export class OtlpReceiver {
  constructor() {
    this.received = [];
    this.rawRequests = [];
    this.waiters = [];
    this.server = http.createServer((request, response) => {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        this.rawRequests.push({ path: request.url, contentType: request.headers['content-type'] });
        let decoded;
        try {
          decoded = decode(Buffer.concat(chunks));
        } catch (error) {
          response.writeHead(400).end(String(error));
          return;
        }
        for (const resourceSpans of decoded.resourceSpans ?? []) {
          const resource = attributes(resourceSpans.resource?.attributes);
          for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
            for (const span of scopeSpans.spans ?? []) {
              this.received.push({ resource, scope: scopeSpans.scope ?? {}, span });
            }
          }
        }
        response.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end();
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  async start() {
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.endpoint = `http://127.0.0.1:${this.server.address().port}`;
    return this;
  }

  close() {
    this.server.close();
  }

  // Spans named `name`, of `traceId` when given.
  named(name, traceId) {
    return this.received.filter(
      (entry) => entry.span.name === name && (traceId === undefined || hex(entry.span.traceId) === traceId),
    );
  }

  // Resolves with `check()`'s value once it is truthy, checking after each
  // request received; rejects with `describe()` after `timeoutMs`.
  async waitFor(check, timeoutMs, describe) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms: ${describe()}`);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

// A SpanExporter that sends through otlp-transformer's own protobuf
// serializer to `endpoint`.
export class OtlpProtobufExporter {
  constructor(endpoint) {
    this.endpoint = endpoint;
  }
  export(spans, done) {
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans));
    const request = http.request(
      `${this.endpoint}/v1/traces`,
      { method: 'POST', headers: { 'Content-Type': 'application/x-protobuf' } },
      (response) => {
        response.resume();
        response.on('end', () =>
          done({ code: response.statusCode === 200 ? ExportResultCode.SUCCESS : ExportResultCode.FAILED }),
        );
      },
    );
    request.on('error', (error) => done({ code: ExportResultCode.FAILED, error }));
    request.end(body);
  }
  shutdown() {
    return Promise.resolve();
  }
}
