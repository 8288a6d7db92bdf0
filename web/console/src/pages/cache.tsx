import { useEffect, useState } from "preact/hooks";
import { call } from "../api";
import { usePolled } from "../polled";
import { ErrorNote } from "./errors";

// The shared tool cache per tenant, scope and tool (GetCacheStats,
// docs/tool-cache.md#seeing-the-cache): entries held now, and lookups since
// the scheduler started.

const SCOPES: Record<string, string> = {
  CACHE_SCOPE_RUN: "run",
  CACHE_SCOPE_REQUEST: "request",
  CACHE_SCOPE_SESSION: "session",
};

// 64-bit counts arrive as strings and zeros not at all (proto JSON).
const n = (value: string | number | undefined) => Number(value ?? 0);

// Hits over every lookup (hits, misses and coalesced), as `taskboard cache`
// shows it; "—" when there was none.
export function hitRatio(hits: number, misses: number, coalesced: number): string {
  const lookups = hits + misses + coalesced;
  return lookups > 0 ? `${((100 * hits) / lookups).toFixed(1)}%` : "—";
}

export function CachePage() {
  const { data: stats, error } = usePolled<any>("GetCacheStats");
  // Whether the token reads every tenant (an admin, or no authentication):
  // then the rows get a tenant column. Asked once by naming a tenant that
  // cannot exist ('/' is not allowed in tenant names): a token bound to one
  // tenant is refused, one that reads all gets an empty answer.
  const [allTenants, setAllTenants] = useState(false);
  useEffect(() => {
    call("GetCacheStats", { tenant: "/" }).then(
      () => setAllTenants(true),
      () => setAllTenants(false),
    );
  }, []);
  const rows: any[] = stats?.rows ?? [];
  const total = rows.reduce(
    (sum, r) => ({
      hits: sum.hits + n(r.hits),
      misses: sum.misses + n(r.misses),
      coalesced: sum.coalesced + n(r.coalesced),
    }),
    { hits: 0, misses: 0, coalesced: 0 },
  );
  return (
    <section>
      <h1>Tool cache</h1>
      <ErrorNote error={error} />
      <p class="hint">
        Entries held now; hits, misses and coalesced lookups since the scheduler started. Hit ratio is hits over all
        lookups.
        {stats && n(stats.maxEntriesPerTenant) > 0
          ? ` A tenant holds at most ${n(stats.maxEntriesPerTenant).toLocaleString()} entries.`
          : ""}
      </p>
      {stats && rows.length === 0 && <p class="hint">No cacheable tool call since the scheduler started.</p>}
      {rows.length > 0 && (
        <table data-testid="cache-stats">
          <thead>
            <tr>
              {allTenants && <th scope="col">Tenant</th>}
              <th scope="col">Scope</th>
              <th scope="col">Tool</th>
              <th scope="col" class="num">Entries</th>
              <th scope="col" class="num">Hits</th>
              <th scope="col" class="num">Misses</th>
              <th scope="col" class="num">Coalesced</th>
              <th scope="col" class="num">Hit ratio</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.tenant ?? ""}/${r.scope}/${r.tool}`} data-tool={r.tool}>
                {allTenants && <td>{r.tenant || "—"}</td>}
                <td>{SCOPES[r.scope] ?? "run"}</td>
                <td>{r.tool}</td>
                <td class="num">{n(r.entries)}</td>
                <td class="num" data-col="hits">
                  {n(r.hits)}
                </td>
                <td class="num">{n(r.misses)}</td>
                <td class="num">{n(r.coalesced)}</td>
                <td class="num" data-col="ratio">
                  {hitRatio(n(r.hits), n(r.misses), n(r.coalesced))}
                </td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={allTenants ? 3 : 2}>
                Total
              </th>
              <td class="num">{n(stats.entries)}</td>
              <td class="num">{total.hits}</td>
              <td class="num">{total.misses}</td>
              <td class="num">{total.coalesced}</td>
              <td class="num">{hitRatio(total.hits, total.misses, total.coalesced)}</td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}
