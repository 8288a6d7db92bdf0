import { ApiError } from "../api";

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const text = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
  return (
    <p role="alert" class="error">
      {text}
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge s-${status}`}>{status}</span>;
}

// A page's load error. A token whose role may not make the page's call gets
// one clear sentence saying so (and what the scheduler said), not an empty
// page; other errors as ErrorNote shows them.
export function PageError({ error, what }: { error: unknown; what: string }) {
  if (error instanceof ApiError && error.code === "permission_denied") {
    return (
      <p role="alert" class="error" data-testid="denied">
        This token may not {what} (permission_denied: {error.message}). Sign in with a client or
        admin token to see it.
      </p>
    );
  }
  return <ErrorNote error={error} />;
}
