import { useState } from "preact/hooks";
import { call } from "../api";
import { ago } from "../format";
import { usePolled } from "../polled";
import { ErrorNote } from "./errors";

// Approvals waiting in the runs the token may see, the oldest first.
export function ApprovalsPage() {
  const { data, error, reload: load } = usePolled<any>("ListApprovals");
  const pending: any[] | null = data ? (data.approvals ?? []) : null;
  return (
    <section>
      <h1>Approvals</h1>
      <ErrorNote error={error} />
      {pending && pending.length === 0 && <p class="hint">Nothing is waiting for a decision.</p>}
      {(pending ?? []).map((p) => (
        <ApprovalCard key={`${p.runId}/${p.stepId}`} pending={p} onDecided={load} />
      ))}
    </section>
  );
}

// One waiting approval with its form: approve (or a declared choice) with
// the form's values, or reject; a comment either way.
export function ApprovalCard({ pending, onDecided }: { pending: any; onDecided: () => void }) {
  const approval = pending.approval ?? {};
  const [values, setValues] = useState<Record<string, string>>({});
  const [comment, setComment] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState("");
  const id = `${pending.runId}-${pending.stepId}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const decide = async (decision: string, choice = "") => {
    setError(null);
    try {
      await call("DecideApproval", {
        runId: pending.runId,
        stepId: pending.stepId,
        decision,
        choice,
        values: decision === "reject" ? {} : values,
        comment,
      });
      setDone(decision === "reject" ? "rejected" : "approved");
      onDecided();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <article class="approval" aria-labelledby={`${id}-title`} data-testid="approval">
      <h2 id={`${id}-title`}>
        <a href={`#/runs/${encodeURIComponent(pending.runId)}`}>{pending.flowName || pending.runId}</a>{" "}
        · {pending.stepId}
      </h2>
      <p class="hint">
        Waiting {ago(approval.waitingSince)}
        {approval.deadline ? ` · decided by ${approval.onTimeout ?? "timeout"} at ${approval.deadline}` : ""}
      </p>
      <pre tabIndex={0} class="output">{approval.prompt}</pre>
      {done ? (
        <p role="status">Decision sent: {done}.</p>
      ) : (
        <form onSubmit={(e) => e.preventDefault()}>
          {(approval.form ?? []).map((field: any) => (
            <label key={field.name} class="field">
              {field.name}
              {field.required ? " (required)" : ""}
              {field.description ? ` — ${field.description}` : ""}
              <input
                name={field.name}
                value={values[field.name] ?? ""}
                onInput={(e) => setValues({ ...values, [field.name]: (e.target as HTMLInputElement).value })}
              />
            </label>
          ))}
          <label class="field">
            Comment
            <input name="comment" value={comment} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
          </label>
          <div class="actions">
            <button type="button" onClick={() => decide("approve")}>
              Approve
            </button>
            {(approval.choices ?? []).map((choice: string) => (
              <button type="button" key={choice} onClick={() => decide("choice", choice)}>
                {choice}
              </button>
            ))}
            <button type="button" class="danger" onClick={() => decide("reject")}>
              Reject
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={error} />
    </article>
  );
}
