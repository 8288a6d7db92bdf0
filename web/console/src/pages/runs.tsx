import { useEffect, useState } from "preact/hooks";
import { call } from "../api";
import { ago, duration, shortStatus } from "../format";
import { ErrorNote, StatusBadge } from "./errors";

const STATUSES = [
  "",
  "RUNNING",
  "PENDING",
  "COMPLETED",
  "FAILED",
  "BLOCKED",
  "CANCELLED",
  "PAUSED",
  "TIMED_OUT",
];

// The runs the token may see, newest first, a page at a time (the
// scheduler pages; the page never holds more than one page of runs).
export function RunsPage() {
  const [status, setStatus] = useState("");
  const [flow, setFlow] = useState("");
  const [label, setLabel] = useState("");
  const [tenant, setTenant] = useState("");
  const [pages, setPages] = useState<string[]>([""]);
  const [runs, setRuns] = useState<any[]>([]);
  const [next, setNext] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const pageToken = pages[pages.length - 1];

  useEffect(() => {
    let live = true;
    const labels: Record<string, string> = {};
    const [key, ...rest] = label.split("=");
    if (key.trim() && rest.length) labels[key.trim()] = rest.join("=").trim();
    setLoading(true);
    call<any>("ListRuns", {
      statuses: status ? [`RUN_STATUS_${status}`] : [],
      flowName: flow.trim(),
      labels,
      tenant: tenant.trim(),
      pageSize: 100,
      pageToken,
    })
      .then((response) => {
        if (!live) return;
        setRuns(response.runs ?? []);
        setNext(response.nextPageToken ?? "");
        setError(null);
      })
      .catch((e) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [status, flow, label, tenant, pageToken]);
  // An admin's list can mix tenants: then say whose each run is.
  const byTenant = tenant.trim() !== "" || new Set(runs.map((r) => r.tenant ?? "")).size > 1;

  const refilter = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setPages([""]);
  };
  return (
    <section>
      <h1>Runs</h1>
      <SubmitForm />
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter runs">
        <label>
          Status{" "}
          <select value={status} onChange={refilter(setStatus)}>
            {STATUSES.map((s) => (
              <option value={s}>{s ? s.toLowerCase() : "any"}</option>
            ))}
          </select>
        </label>
        <label>
          Flow <input value={flow} onChange={refilter(setFlow)} placeholder="name" />
        </label>
        <label>
          Label <input value={label} onChange={refilter(setLabel)} placeholder="key=value" />
        </label>
        <label>
          Tenant <input value={tenant} onChange={refilter(setTenant)} placeholder="admin tokens: any" />
        </label>
      </form>
      <ErrorNote error={error} />
      <table class="runs" aria-busy={loading}>
        <thead>
          <tr>
            <th scope="col">Run</th>
            {byTenant && <th scope="col">Tenant</th>}
            <th scope="col">Flow</th>
            <th scope="col">Status</th>
            <th scope="col">Tasks</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId}>
              <td>
                <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</a>
              </td>
              {byTenant && <td>{run.tenant || "—"}</td>}
              <td>{run.flowName}</td>
              <td>
                <StatusBadge status={shortStatus(run.status)} />
              </td>
              <td>
                {run.tasksDone ?? 0}/{run.tasksTotal ?? 0}
              </td>
              <td>{ago(run.createdAt)}</td>
              <td>{duration(run.createdAt, run.finishedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && runs.length === 0 && <p class="hint">No runs match.</p>}
      <nav class="pager" aria-label="Pages">
        <button disabled={pages.length < 2} onClick={() => setPages(pages.slice(0, -1))}>
          Newer
        </button>
        <button disabled={!next} onClick={() => setPages([...pages, next])}>
          Older
        </button>
      </nav>
    </section>
  );
}

// Submits a saved flow with JSON args.
function SubmitForm() {
  const [flows, setFlows] = useState<any[]>([]);
  const [name, setName] = useState("");
  const [args, setArgs] = useState("{}");
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    call<any>("ListFlows", { pageSize: 500 })
      .then((r) => {
        setFlows(r.flows ?? []);
        if (r.flows?.length) setName(r.flows[0].name);
      })
      .catch(setError);
  }, []);
  if (flows.length === 0) return <ErrorNote error={error} />;
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const parsed = JSON.parse(args || "{}");
      const response = await call<any>("SubmitRun", { saved: { name }, args: parsed });
      location.hash = `#/runs/${encodeURIComponent(response.runId)}`;
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form class="submit" onSubmit={submit} aria-label="Submit a saved flow">
      <label>
        Saved flow{" "}
        <select value={name} onChange={(e) => setName((e.target as HTMLSelectElement).value)}>
          {flows.map((f) => (
            <option value={f.name}>
              {f.name} (v{f.version})
            </option>
          ))}
        </select>
      </label>
      <label>
        Args (JSON){" "}
        <input
          class="args"
          value={args}
          onInput={(e) => setArgs((e.target as HTMLInputElement).value)}
        />
      </label>
      <button type="submit">Submit</button>
      <ErrorNote error={error} />
    </form>
  );
}
