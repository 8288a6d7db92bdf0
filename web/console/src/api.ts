// The scheduler's HTTP API (docs/http-api.md): POST /api/v1/<Method> with
// JSON, and WatchRun as server-sent events read with fetch (EventSource
// cannot send the Authorization header). The token lives in
// sessionStorage: gone when the browser session ends.

const TOKEN_KEY = "taskboard.token";

export function getToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

export function setToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly flowErrors?: { errors?: { path?: string; message?: string }[] },
  ) {
    super(message);
  }
}

function headers(): Record<string, string> {
  const out: Record<string, string> = { "Content-Type": "application/json" };
  const token = getToken();
  if (token) out["Authorization"] = `Bearer ${token}`;
  return out;
}

export async function call<T>(method: string, body: object = {}): Promise<T> {
  const response = await fetch(`/api/v1/${method}`, {
    method: "POST",
    headers: headers(),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: any = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(response.status, "unknown", text || response.statusText);
  }
  if (!response.ok) {
    throw new ApiError(response.status, json.code ?? "unknown", json.message ?? text, json.flowErrors);
  }
  return json as T;
}

// Follows a run's events: `onEvents` for each frame, `onEnd` once the run's
// stream ends for good (the run ended, or a refusal). A stream cut by its
// time limit or the network is resumed after the last id seen. Returns a
// function that stops following.
export function watchRun(
  runId: string,
  onEvents: (events: any[]) => void,
  onEnd: (code: string, message: string) => void,
): () => void {
  const abort = new AbortController();
  let lastId = "";
  let stopped = false;

  const follow = async (): Promise<void> => {
    while (!stopped) {
      const h = headers();
      if (lastId) h["Last-Event-ID"] = lastId;
      let response: Response;
      try {
        response = await fetch("/api/v1/WatchRun", {
          method: "POST",
          headers: h,
          body: JSON.stringify({ runId, maxEventsPerMessage: 200 }),
          signal: abort.signal,
        });
      } catch {
        if (stopped) return;
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (!response.ok || !response.body) {
        const json = await response.json().catch(() => ({}));
        onEnd(json.code ?? "unknown", json.message ?? response.statusText);
        return;
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      let end: { code: string; message: string } | null = null;
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let cut: number;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const frame = parseFrame(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
            if (frame.id) lastId = frame.id;
            if (frame.event === "end") {
              end = JSON.parse(frame.data);
            } else if (frame.data) {
              const message = JSON.parse(frame.data);
              onEvents(message.events ?? (message.event ? [message.event] : []));
            }
          }
        }
      } catch {
        if (stopped) return;
      }
      // Its time was up or the connection dropped: go on after lastId.
      if (end && end.code !== "deadline_exceeded" && end.code !== "unavailable") {
        onEnd(end.code, end.message ?? "");
        return;
      }
      if (!stopped) await new Promise((r) => setTimeout(r, 500));
    }
  };
  void follow();
  return () => {
    stopped = true;
    abort.abort();
  };
}

function parseFrame(text: string): { event: string; id: string; data: string } {
  const frame = { event: "message", id: "", data: "" };
  for (const line of text.split("\n")) {
    if (line.startsWith("event: ")) frame.event = line.slice(7);
    else if (line.startsWith("id: ")) frame.id = line.slice(4);
    else if (line.startsWith("data: ")) frame.data += line.slice(6);
  }
  return frame;
}

// What the scheduler tells the console about its setup
// (GET /console-config.json, docs/console.md#trace-links). Read once per
// page load; a scheduler without the endpoint, or an unreachable one, gives
// the defaults (no trace links).
export interface ConsoleConfig {
  traceUrlTemplate: string;
}

let consoleConfigOnce: Promise<ConsoleConfig> | null = null;

export function consoleConfig(): Promise<ConsoleConfig> {
  consoleConfigOnce ??= fetch("/console-config.json")
    .then((response) => (response.ok ? response.json() : {}))
    .catch(() => ({}))
    .then((json: any) => ({ traceUrlTemplate: String(json?.traceUrlTemplate ?? "") }));
  return consoleConfigOnce;
}
