import { call } from "../api";
import { count, shortStatus } from "../format";
import { usePolledWith } from "../polled";
import { Ago } from "./ago";
import { PageError, StatusBadge } from "./errors";
import { RunLink } from "./run_link";

// The tenant's event triggers (docs/schedules.md#event-triggers): what each
// one listens for and starts, how it authenticates, and its recent
// deliveries: accepted (with the run it started), deduped (with the run a
// first delivery started), filtered or refused, and why. ListTriggers leaves
// out the deliveries, so each trigger is read with ListTriggerDeliveries too
// (a tenant holds a bounded number of triggers, each at most 50 deliveries).

const DELIVERIES_SHOWN = 20;

async function loadAll(): Promise<any[]> {
  const listed = await call<any>("ListTriggers");
  return Promise.all(
    (listed.triggers ?? []).map((t: any) =>
      call<any>("ListTriggerDeliveries", { name: t.name }).then((r) => ({
        ...t,
        deliveries: r.deliveries ?? [],
      })),
    ),
  );
}

export function TriggersPage() {
  const { data: triggers, error } = usePolledWith<any[]>(loadAll);
  return (
    <section>
      <h1>Triggers</h1>
      <PageError error={error} what="read this tenant's triggers" />
      {triggers && triggers.length === 0 && (
        <p class="hint">
          No trigger yet: create one with <code>taskboard triggers create FILE</code>{" "}
          (docs/schedules.md#event-triggers).
        </p>
      )}
      {(triggers ?? []).map((t) => (
        <TriggerCard key={t.name} trigger={t} />
      ))}
    </section>
  );
}

function auth(t: any): string {
  const ways = [];
  if (t.hmacSecretSet) ways.push("X-Hub-Signature-256");
  if (t.bearer) ways.push("bearer token");
  return ways.length === 0 ? "none" : ways.join(" or ");
}

function TriggerCard({ trigger: t }: { trigger: any }) {
  const deliveries: any[] = (t.deliveries ?? []).slice(0, DELIVERIES_SHOWN);
  return (
    <article class="schedule" data-testid="trigger" data-name={t.name} aria-label={`Trigger ${t.name}`}>
      <h2>
        {t.name}{" "}
        <span class={`badge ${t.paused ? "s-paused" : "s-running"}`} data-testid="trigger-state">
          {t.paused ? "paused" : "active"}
        </span>
      </h2>
      <dl class="facts">
        <dt>Event</dt>
        <dd>
          <code>POST /api/v1/events/{t.event}</code>
        </dd>
        <dt>Flow</dt>
        <dd>
          {t.flow}
          {count(t.flowVersion) > 0 ? ` v${count(t.flowVersion)}` : " (latest)"}
        </dd>
        <dt>Authentication</dt>
        <dd>{auth(t)}</dd>
        <dt>Dedupe</dt>
        <dd>{t.dedupe || "none"}</dd>
        <dt>Deliveries</dt>
        <dd data-testid="trigger-counts">
          accepted {count(t.accepted)}, deduped {count(t.deduped)}, filtered {count(t.filtered)},
          refused {count(t.refused)}
        </dd>
      </dl>
      <h3>Recent deliveries</h3>
      {deliveries.length === 0 ? (
        <p class="hint">None yet.</p>
      ) : (
        <table data-testid="deliveries">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Outcome</th>
              <th scope="col">Why</th>
              <th scope="col">Dedupe key</th>
              <th scope="col">Run</th>
              <th scope="col">Run status</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d, i) => (
              <tr key={`${d.at}/${i}`} data-outcome={d.outcome}>
                <td>
                  <Ago at={d.at} />
                </td>
                <td>{d.outcome}</td>
                <td>
                  {d.reason}
                  {count(d.retryAfterSeconds) > 0 && ` (retry after ${count(d.retryAfterSeconds)} s)`}
                </td>
                <td>{d.dedupe ? <code>{d.dedupe}</code> : "—"}</td>
                <td>{d.runId ? <RunLink runId={d.runId} /> : "—"}</td>
                <td>{d.runId && d.runStatus ? <StatusBadge status={shortStatus(d.runStatus)} /> : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
