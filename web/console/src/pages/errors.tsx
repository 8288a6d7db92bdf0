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
