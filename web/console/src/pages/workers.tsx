import { call } from "../api";
import { ago } from "../format";
import { usePolled } from "../polled";
import { Ago } from "./ago";
import { ErrorNote } from "./errors";

// Connected workers: slots, what runs, draining, when the scheduler last
// heard from each; an admin can drain one.
export function WorkersPage() {
  const { data, error, setError, reload: load } = usePolled<any>("ListWorkers");
  const workers: any[] | null = data ? (data.workers ?? []) : null;
  const drain = async (workerId: string) => {
    try {
      await call("DrainWorker", { workerId, reason: "from the web console" });
      void load();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section>
      <h1>Workers</h1>
      <ErrorNote error={error} />
      {workers && workers.length === 0 && <p class="hint">No worker is connected.</p>}
      {workers && workers.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Worker</th>
              <th scope="col">Version</th>
              <th scope="col">Running</th>
              <th scope="col">Free slots</th>
              <th scope="col">Connected</th>
              <th scope="col">Last heartbeat</th>
              <th scope="col">State</th>
              <th scope="col"></th>
            </tr>
          </thead>
          <tbody>
            {workers.map((w) => (
              <tr key={w.workerId}>
                <td>{w.workerId}</td>
                <td>{w.version}</td>
                <td>{w.running ?? 0}</td>
                <td>{w.freeSlots ?? 0}</td>
                <td>{ago(w.connectedAt)}</td>
                <td data-testid="last-heartbeat">
                  <Ago at={w.lastHeartbeat} />
                </td>
                <td>{w.draining ? "draining" : "serving"}</td>
                <td>
                  {!w.draining && (
                    <button onClick={() => drain(w.workerId)} aria-label={`Drain ${w.workerId}`}>
                      Drain
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
