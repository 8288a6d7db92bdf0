// Small display helpers shared by the pages.

export function shortStatus(status: string | undefined): string {
  return (status ?? "").replace(/^(RUN_STATUS_|TASK_STATE_)/, "").toLowerCase() || "unknown";
}

export function ago(timestamp: string | undefined, now = Date.now()): string {
  if (!timestamp) return "";
  return span(now - Date.parse(timestamp)) + " ago";
}

export function duration(from: string | undefined, to: string | undefined, now = Date.now()): string {
  if (!from) return "";
  return span((to ? Date.parse(to) : now) - Date.parse(from));
}

export function span(ms: number): string {
  if (!(ms >= 0)) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${Math.round(s % 60)}s`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h ${m % 60}m` : `${Math.floor(h / 24)}d ${h % 24}h`;
}

export function usd(value: number | undefined): string {
  return value ? `$${value.toFixed(value < 0.01 ? 4 : 2)}` : "";
}

export function tokens(usage: any): string {
  if (!usage) return "";
  const total = Number(usage.inputTokens ?? 0) + Number(usage.outputTokens ?? 0);
  return total ? `${total.toLocaleString()} tokens` : "";
}

// The instant itself, for a title next to a relative time:
// "2026-11-26 02:10:03 UTC".
export function when(timestamp: string | undefined): string {
  if (!timestamp) return "";
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? "" : new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

// Why an attempt ended (TaskAttempt.ended) as a reader says it:
// "lease_expired" -> "lease expired".
export function endedWord(ended: string | undefined): string {
  return (ended ?? "").replace(/_/g, " ") || "ended";
}

// A run's deadline (docs/semantics.md#run-deadlines) as the run page shows it:
// "deadline 30s (flow)", "deadline 30s (flow) passed" once it ended the run;
// "" for a run without one.
export function deadlineText(run: any): string {
  const deadline = run?.deadline;
  const seconds = Number(deadline?.timeoutSeconds ?? 0);
  if (!seconds) return "";
  const source = String(deadline.source ?? "").replace(/^RUN_DEADLINE_SOURCE_/, "").toLowerCase() || "unknown";
  const text = `deadline ${seconds}s (${source})`;
  return shortStatus(run.status) === "timed_out" ? `${text} passed` : text;
}
// A run's trace link: the scheduler's --trace-url-template with {trace_id}
// replaced (docs/console.md#trace-links). "" without a template or a trace
// id, or when the result is not an http(s) URL (the scheduler checks the
// template; this keeps a javascript: URL out of an href whatever it sent).
export function traceUrl(template: string, traceId: string | undefined): string {
  if (!template || !traceId || !/^[0-9a-f]{32}$/.test(traceId)) return "";
  const url = template.split("{trace_id}").join(traceId);
  return /^https?:\/\//i.test(url) ? url : "";
}

// 64-bit counts arrive as strings and zeros not at all (proto JSON).
export const count = (value: string | number | undefined): number => Number(value ?? 0);
