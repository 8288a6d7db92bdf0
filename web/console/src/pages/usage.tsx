import { useEffect, useState } from "preact/hooks";
import { call } from "../api";
import { count, shortStatus, usd } from "../format";
import { ErrorNote, PageError, StatusBadge } from "./errors";

// LLM usage over a range of UTC days (docs/llm-governance.md#usage-you-can-see):
// GetUsage's rows (tenant, model, day) summed per tenant and model, or per
// model, tenant or day, as `taskboard usage --by` sums them; and the runs
// started in the range with what they billed against their budgets
// (ListRuns' Run.billed and Run.budget); and each tenant's period budget
// from the scheduler's limits file next to what the tenant billed in the
// current UTC day or month (GetUsage's budgets,
// docs/llm-governance.md#tenant-budgets), whatever the range says.

const DAY_MS = 24 * 3600 * 1000;
const RUNS_READ = 500;

type Grouping = "tenant-model" | "model" | "tenant" | "day";

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

interface Totals {
  requests: number;
  input: number;
  output: number;
  cached: number;
  cost: number;
  rateLimited: number;
}

const zero = (): Totals => ({ requests: 0, input: 0, output: 0, cached: 0, cost: 0, rateLimited: 0 });

function add(totals: Totals, row: any): void {
  totals.requests += count(row.requests);
  totals.input += count(row.usage?.inputTokens);
  totals.output += count(row.usage?.outputTokens);
  totals.cached += count(row.usage?.cacheReadTokens);
  totals.cost += Number(row.usage?.costUsd ?? 0);
  totals.rateLimited += count(row.rateLimited);
}

// The columns that name a line, as `taskboard usage --by` has them.
function keyOf(row: any, by: Grouping): string[] {
  const tenant = row.tenant || "-";
  const model = row.model || "-";
  if (by === "model") return [model];
  if (by === "tenant") return [tenant];
  if (by === "day") return [tenant, model, row.day];
  return [tenant, model];
}

const KEY_HEADERS: Record<Grouping, string[]> = {
  "tenant-model": ["Tenant", "Model"],
  model: ["Model"],
  tenant: ["Tenant"],
  day: ["Tenant", "Model", "Day"],
};

export function UsagePage() {
  const today = utcDay(Date.now());
  const [since, setSince] = useState(utcDay(Date.now() - 29 * DAY_MS));
  const [until, setUntil] = useState(today);
  const [tenant, setTenant] = useState("");
  const [by, setBy] = useState<Grouping>("tenant-model");
  const [rows, setRows] = useState<any[] | null>(null);
  const [budgets, setBudgets] = useState<any[] | null>(null);
  const [runs, setRuns] = useState<any[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [runsError, setRunsError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    const from = Date.parse(`${since}T00:00:00Z`);
    const to = Date.parse(`${until}T00:00:00Z`) + DAY_MS;
    call<any>("GetUsage", { tenant: tenant.trim(), since: Number.isNaN(from) ? undefined : new Date(from).toISOString() })
      .then((r) => {
        if (!live) return;
        // GetUsage counts from `since` on; the range's end is cut here.
        setRows((r.rows ?? []).filter((row: any) => !until || row.day <= until));
        setBudgets(r.budgets ?? []);
        setError(null);
      })
      .catch((e) => live && setError(e));
    call<any>("ListRuns", { tenant: tenant.trim(), pageSize: RUNS_READ })
      .then((r) => {
        if (!live) return;
        setRuns(
          (r.runs ?? []).filter((run: any) => {
            const at = Date.parse(run.createdAt ?? "");
            return !run.parentRunId && at >= from && at < to;
          }),
        );
        setRunsError(null);
      })
      .catch((e) => live && setRunsError(e));
    return () => {
      live = false;
    };
  }, [since, until, tenant]);

  const lines = new Map<string, { key: string[]; totals: Totals }>();
  const total = zero();
  for (const row of rows ?? []) {
    const key = keyOf(row, by);
    const id = JSON.stringify(key);
    if (!lines.has(id)) lines.set(id, { key, totals: zero() });
    add(lines.get(id)!.totals, row);
    add(total, row);
  }
  const sorted = [...lines.values()].sort((a, b) => (a.key.join("\u0000") < b.key.join("\u0000") ? -1 : 1));
  const headers = KEY_HEADERS[by];
  return (
    <section>
      <h1>Usage</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Usage range">
        <label>
          From <input type="date" name="since" value={since} max={until} onChange={(e) => setSince((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          To <input type="date" name="until" value={until} min={since} onChange={(e) => setUntil((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Tenant <input name="tenant" value={tenant} placeholder="admin tokens: any" onChange={(e) => setTenant((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          By{" "}
          <select name="by" value={by} onChange={(e) => setBy((e.target as HTMLSelectElement).value as Grouping)}>
            <option value="tenant-model">tenant and model</option>
            <option value="model">model</option>
            <option value="tenant">tenant</option>
            <option value="day">day</option>
          </select>
        </label>
      </form>
      <p class="hint">UTC days, both included. Every model call as billed: retries and failed attempts too.</p>
      <PageError error={error} what="read LLM usage" />
      {rows && rows.length === 0 && <p class="hint">No LLM usage in this range.</p>}
      {rows && rows.length > 0 && (
        <table data-testid="usage">
          <thead>
            <tr>
              {headers.map((h) => (
                <th scope="col">{h}</th>
              ))}
              <th scope="col" class="num">Requests</th>
              <th scope="col" class="num">Input</th>
              <th scope="col" class="num">Output</th>
              <th scope="col" class="num">Cached</th>
              <th scope="col" class="num">Cost</th>
              <th scope="col" class="num">429s</th>
            </tr>
          </thead>
          <tbody>
            {sorted.map(({ key, totals }) => (
              <tr key={key.join("/")} data-key={key.join("/")}>
                {key.map((k) => (
                  <td>{k}</td>
                ))}
                <UsageCells totals={totals} />
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr data-testid="usage-total">
              <th scope="row" colSpan={headers.length}>
                Total
              </th>
              <UsageCells totals={total} />
            </tr>
          </tfoot>
        </table>
      )}
      {budgets && budgets.length > 0 && (
        <section data-testid="tenant-budgets" aria-labelledby="tenant-budgets-title">
          <h2 id="tenant-budgets-title">Tenant budgets</h2>
          <p class="hint">
            Each tenant's budget from the scheduler's LLM limits file, against what it billed in the current UTC day or
            month (whatever the range above). A call that would go past a budget pauses its run.
          </p>
          <div class="budgets">
            {budgets.map((b) => (
              <TenantBudgetPanel key={b.tenant} budget={b} />
            ))}
          </div>
        </section>
      )}
      <h2>Runs and their budgets</h2>
      <p class="hint">
        Runs started in the range (the newest {RUNS_READ} the token may see, child runs counted in their root): what
        each billed, its budget, and what is left of it.
      </p>
      <ErrorNote error={runsError} />
      {runs && runs.length === 0 && <p class="hint">No run started in this range.</p>}
      {runs && runs.length > 0 && (
        <table data-testid="run-usage">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Flow</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">Tokens</th>
              <th scope="col" class="num">Cost</th>
              <th scope="col" class="num">Budget</th>
              <th scope="col" class="num">Left</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <RunUsageRow key={run.runId} run={run} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function UsageCells({ totals }: { totals: Totals }) {
  return (
    <>
      <td class="num" data-col="requests">{totals.requests.toLocaleString()}</td>
      <td class="num" data-col="input">{totals.input.toLocaleString()}</td>
      <td class="num" data-col="output">{totals.output.toLocaleString()}</td>
      <td class="num" data-col="cached">{totals.cached.toLocaleString()}</td>
      {/* No price anywhere: "-" rather than a misleading $0, as the CLI. */}
      <td class="num" data-col="cost">{totals.cost > 0 ? usd(totals.cost) : "-"}</td>
      <td class="num">{totals.rateLimited.toLocaleString()}</td>
    </>
  );
}

// The budget's limits and what is left of each; "—" for no budget (a limit
// of 0 is none).
function RunUsageRow({ run }: { run: any }) {
  const billed = run.billed ?? {};
  const used = count(billed.inputTokens) + count(billed.outputTokens);
  const cost = Number(billed.costUsd ?? 0);
  const budgetTokens = count(run.budget?.tokens);
  const budgetUsd = Number(run.budget?.usd ?? 0);
  const limits: string[] = [];
  const left: string[] = [];
  if (budgetTokens > 0) {
    limits.push(`${budgetTokens.toLocaleString()} tokens`);
    left.push(`${Math.max(0, budgetTokens - used).toLocaleString()} tokens`);
  }
  if (budgetUsd > 0) {
    limits.push(`$${budgetUsd.toFixed(2)}`);
    left.push(`$${Math.max(0, budgetUsd - cost).toFixed(4)}`);
  }
  return (
    <tr data-run={run.runId}>
      <td>
        <a href={`#/runs/${encodeURIComponent(run.runId)}`}>{run.runId}</a>
      </td>
      <td>{run.flowName}</td>
      <td>
        <StatusBadge status={shortStatus(run.status)} />
      </td>
      <td class="num" data-col="tokens">{used.toLocaleString()}</td>
      <td class="num" data-col="cost">{cost > 0 ? usd(cost) : "-"}</td>
      <td class="num" data-col="budget">{limits.join(", ") || "—"}</td>
      <td class="num" data-col="left">{left.join(", ") || "—"}</td>
    </tr>
  );
}

// The share of a limit billed, rounded down to a tenth of a percent so a
// tenant at 99.96% never reads as at its cap.
function budgetShare(billed: number, limit: number): number {
  return Math.floor((billed / limit) * 1000) / 10;
}

// One tenant's period budget: per measure with a limit, billed of the limit
// and a bar of the share used; a measure without one shows what was billed.
function TenantBudgetPanel({ budget }: { budget: any }) {
  const period = budget.period === "month" ? "month" : "day";
  const from = String(budget.periodStart ?? "").slice(0, period === "month" ? 7 : 10);
  const billedUsd = Number(budget.billedUsd ?? 0);
  const billedTokens = count(budget.billedTokens);
  return (
    <article class="budget" data-tenant={budget.tenant}>
      <h3>{budget.tenant}</h3>
      <p class="hint" data-col="period">
        {period === "month" ? "This month" : "Today"} ({from}, UTC)
      </p>
      <BudgetLine
        what="Cost"
        tenant={budget.tenant}
        billed={billedUsd}
        limit={Number(budget.budgetUsd ?? 0)}
        show={(v) => usd(v) || "$0"}
      />
      <BudgetLine
        what="Tokens"
        tenant={budget.tenant}
        billed={billedTokens}
        limit={count(budget.budgetTokens)}
        show={(v) => v.toLocaleString()}
      />
    </article>
  );
}

function BudgetLine(props: { what: string; tenant: string; billed: number; limit: number; show: (v: number) => string }) {
  const { what, tenant, billed, limit, show } = props;
  const key = what.toLowerCase();
  if (limit <= 0) {
    return (
      <p class="budget-line" data-col={key}>
        {what}: <span data-part="billed">{show(billed)}</span> <span class="hint">(no limit)</span>
      </p>
    );
  }
  const share = budgetShare(billed, limit);
  return (
    <div class="budget-line" data-col={key}>
      <p>
        {what}: <span data-part="billed">{show(billed)}</span> of <span data-part="limit">{show(limit)}</span>{" "}
        (<span data-part="share">{share.toFixed(1)}%</span>)
      </p>
      <div
        class={share >= 90 ? "bar near" : "bar"}
        role="progressbar"
        aria-label={`${tenant}: ${key} budget used`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.min(100, share)}
      >
        <div class="fill" style={{ width: `${Math.min(100, share)}%` }} />
      </div>
    </div>
  );
}
