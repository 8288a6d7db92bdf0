import { useState } from "preact/hooks";
import { call } from "../api";
import { count, shortStatus, when } from "../format";
import { usePolledWith } from "../polled";
import { Ago } from "./ago";
import { ErrorNote, PageError, StatusBadge } from "./errors";
import { RunLink } from "./run_link";

// The tenant's schedules (docs/schedules.md): each one's next fire times,
// whether it is paused and why, what it did with its recent fires and the
// runs those started; pause, unpause and trigger now. ListSchedules leaves
// out the recent actions, so each schedule is read with DescribeSchedule too
// (a tenant holds a bounded number of schedules).

const NEXT_SHOWN = 3;
const ACTIONS_SHOWN = 10;

async function describeAll(): Promise<any[]> {
  const listed = await call<any>("ListSchedules");
  return Promise.all(
    (listed.schedules ?? []).map((s: any) =>
      call<any>("DescribeSchedule", { name: s.name }).then((r) => r.schedule ?? s),
    ),
  );
}

export function SchedulesPage() {
  const { data: schedules, error, reload } = usePolledWith<any[]>(describeAll);
  return (
    <section>
      <h1>Schedules</h1>
      <PageError error={error} what="read this tenant's schedules" />
      {schedules && schedules.length === 0 && (
        <p class="hint">
          No schedule yet: create one with <code>taskboard schedules create FILE</code> (docs/schedules.md).
        </p>
      )}
      {(schedules ?? []).map((s) => (
        <ScheduleCard key={s.name} schedule={s} onChanged={reload} />
      ))}
    </section>
  );
}

function ScheduleCard({ schedule: s, onChanged }: { schedule: any; onChanged: () => void }) {
  const [note, setNote] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [started, setStarted] = useState<any>(null);
  const act = async (method: string, body: object) => {
    setError(null);
    setStarted(null);
    try {
      const answer = await call<any>(method, { name: s.name, ...body });
      if (method === "TriggerSchedule") setStarted(answer.action ?? {});
      setNote("");
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  const next: string[] = (s.nextFireTimes ?? []).slice(0, NEXT_SHOWN);
  const actions: any[] = (s.recentActions ?? []).slice(0, ACTIONS_SHOWN);
  const noteId = `note-${s.name}`;
  return (
    <article class="schedule" data-testid="schedule" data-name={s.name} aria-label={`Schedule ${s.name}`}>
      <h2>
        {s.name}{" "}
        <span class={`badge ${s.paused ? "s-paused" : "s-running"}`} data-testid="schedule-state">
          {s.paused ? "paused" : "active"}
        </span>
      </h2>
      <dl class="facts">
        <dt>Flow</dt>
        <dd>
          {s.flow}
          {count(s.flowVersion) > 0 ? ` v${count(s.flowVersion)}` : " (latest)"}
        </dd>
        {s.note && (
          <>
            <dt>Note</dt>
            <dd data-testid="schedule-note">{s.note}</dd>
          </>
        )}
        <dt>Overlap</dt>
        <dd>{s.overlap || "skip"}</dd>
        <dt>Next</dt>
        <dd data-testid="next-times">
          {next.length === 0
            ? "no more fire times"
            : next.map((t, i) => (
                <span key={t}>
                  {i > 0 && ", "}
                  <time dateTime={t}>{when(t)}</time>
                </span>
              ))}
          {s.paused && next.length > 0 && " (skipped while paused)"}
        </dd>
        <dt>Runs started</dt>
        <dd>
          {count(s.fires)}; missed {count(s.missed)}, skipped {count(s.skipped)}
          {count(s.bufferedFires) > 0 && `, ${count(s.bufferedFires)} buffered`}
        </dd>
        {(s.runningRunIds ?? []).length > 0 && (
          <>
            <dt>Running</dt>
            <dd>
              {s.runningRunIds.map((id: string, i: number) => (
                <span key={id}>
                  {i > 0 && ", "}
                  <RunLink runId={id} />
                </span>
              ))}
            </dd>
          </>
        )}
      </dl>
      <form class="actions" onSubmit={(e) => e.preventDefault()} aria-label={`Act on schedule ${s.name}`}>
        <label for={noteId}>Note</label>
        <input
          id={noteId}
          name="note"
          value={note}
          placeholder="why (kept with the schedule)"
          onInput={(e) => setNote((e.target as HTMLInputElement).value)}
        />
        {s.paused ? (
          <button type="button" onClick={() => act("UnpauseSchedule", { note })}>
            Unpause
          </button>
        ) : (
          <button type="button" onClick={() => act("PauseSchedule", { note })}>
            Pause
          </button>
        )}
        <button type="button" onClick={() => act("TriggerSchedule", {})}>
          Trigger now
        </button>
      </form>
      <ErrorNote error={error} />
      {started && (
        <p role="status" data-testid="triggered">
          Triggered: {started.action || "done"}
          {started.runId && (
            <>
              {" "}
              — <RunLink runId={started.runId} />
            </>
          )}
          {started.error && `: ${started.error}`}
        </p>
      )}
      <h3>Recent actions</h3>
      {actions.length === 0 ? (
        <p class="hint">None yet.</p>
      ) : (
        <table data-testid="recent-actions">
          <thead>
            <tr>
              <th scope="col">Fire time</th>
              <th scope="col">Decided</th>
              <th scope="col">Action</th>
              <th scope="col">Run</th>
              <th scope="col">Run status</th>
            </tr>
          </thead>
          <tbody>
            {actions.map((a) => (
              <tr key={`${a.fireTime}/${a.decidedAt}/${a.runId ?? ""}`} data-action={a.action}>
                <td>
                  <time dateTime={a.fireTime}>{when(a.fireTime)}</time>
                </td>
                <td>
                  <Ago at={a.decidedAt} />
                </td>
                <td>
                  {a.action}
                  {a.manual && ` (${a.manual})`}
                  {a.error && <span class="error-text">: {a.error}</span>}
                </td>
                <td>{a.runId ? <RunLink runId={a.runId} /> : "—"}</td>
                <td>{a.runId && a.runStatus ? <StatusBadge status={shortStatus(a.runStatus)} /> : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </article>
  );
}
