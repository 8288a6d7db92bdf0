import { useState } from "preact/hooks";
import { ApiError, call, setToken } from "../api";

// The token is checked with a harmless call before it is kept; it is kept in
// sessionStorage only (gone when the browser session ends).
export function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [token, setValue] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError("");
    setToken(token.trim());
    try {
      await call("ListRuns", { pageSize: 1 });
      onSignedIn(token.trim());
    } catch (e) {
      setToken(null);
      setError(e instanceof ApiError ? `Refused (${e.code}): ${e.message}` : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>Taskboard</h1>
      <form onSubmit={submit}>
        <label for="token">Bearer token</label>
        <input
          id="token"
          type="password"
          autocomplete="off"
          value={token}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          aria-describedby="token-help"
        />
        <p id="token-help" class="hint">
          A token from the scheduler's tokens file. Leave it empty when the scheduler runs without
          authentication (taskboard dev).
        </p>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
