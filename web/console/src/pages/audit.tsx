import { useEffect, useState } from "preact/hooks";
import { call } from "../api";
import { Ago } from "./ago";
import { PageError } from "./errors";

// The audit trail (ListAuditEvents, docs/audit.md): who changed what, newest
// first, 50 a page, filtered by actor, method and target (exact matches; a
// method as "SubmitRun" or "Scheduler.SubmitRun"). The scheduler pages; the
// page keeps the tokens of the pages before it for "Newer".

const PAGE_SIZE = 50;

const OUTCOMES: Record<string, string> = {
  AUDIT_OUTCOME_OK: "ok",
  AUDIT_OUTCOME_ERROR: "error",
  AUDIT_OUTCOME_REFUSED: "refused",
};

export function AuditPage() {
  const [actor, setActor] = useState("");
  const [method, setMethod] = useState("");
  const [target, setTarget] = useState("");
  const [pages, setPages] = useState<string[]>([""]);
  const [events, setEvents] = useState<any[] | null>(null);
  const [next, setNext] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const pageToken = pages[pages.length - 1];

  useEffect(() => {
    let live = true;
    setLoading(true);
    call<any>("ListAuditEvents", {
      actor: actor.trim(),
      method: method.trim(),
      target: target.trim(),
      pageSize: PAGE_SIZE,
      pageToken,
    })
      .then((response) => {
        if (!live) return;
        setEvents(response.events ?? []);
        setNext(response.nextPageToken ?? "");
        setError(null);
      })
      .catch((e) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [actor, method, target, pageToken]);

  const refilter = (set: (v: string) => void) => (e: Event) => {
    set((e.target as HTMLInputElement).value);
    setPages([""]);
  };
  const rows = events ?? [];
  const byTenant = new Set(rows.map((e) => e.tenant ?? "")).size > 1;
  return (
    <section>
      <h1>Audit trail</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter the audit trail">
        <label>
          Actor <input name="actor" value={actor} onChange={refilter(setActor)} placeholder="token name" />
        </label>
        <label>
          Method <input name="method" value={method} onChange={refilter(setMethod)} placeholder="SubmitRun" />
        </label>
        <label>
          Target <input name="target" value={target} onChange={refilter(setTarget)} placeholder="run id, flow…" />
        </label>
      </form>
      <PageError error={error} what="read the audit trail" />
      {events && (
        <table data-testid="audit" aria-busy={loading}>
          <thead>
            <tr>
              <th scope="col">When</th>
              {byTenant && <th scope="col">Tenant</th>}
              <th scope="col">Actor</th>
              <th scope="col">Method</th>
              <th scope="col">Target</th>
              <th scope="col">Outcome</th>
              <th scope="col">Detail</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const outcome = OUTCOMES[e.outcome] ?? "unknown";
              return (
                <tr key={e.id} data-method={e.method} data-outcome={outcome}>
                  <td>
                    <Ago at={e.time} />
                  </td>
                  {byTenant && <td>{e.tenant || "—"}</td>}
                  <td>
                    {e.actor || "—"}
                    {e.role && <span class="hint"> ({e.role})</span>}
                  </td>
                  <td>{e.method}</td>
                  <td data-col="target">{e.target ? <Target value={e.target} /> : "—"}</td>
                  <td class={outcome === "ok" ? "" : "error-text"}>
                    {outcome}
                    {e.code && e.code !== "OK" && ` (${e.code})`}
                  </td>
                  <td>{[e.message, e.detail].filter(Boolean).join(" — ")}</td>
                  <td>{e.peer}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {!loading && events && rows.length === 0 && <p class="hint">No records match.</p>}
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

// A run id target links to its run ("run_id/step_id" for an approval too).
function Target({ value }: { value: string }) {
  const runId = value.split("/")[0];
  if (!/^run-/.test(runId)) return <>{value}</>;
  return <a href={`#/runs/${value.split("/").map(encodeURIComponent).join("/")}`}>{value}</a>;
}
