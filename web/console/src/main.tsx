// Taskboard's web console (docs/console.md): a single page served by the
// scheduler, talking to its HTTP API with the token the user signs in with.
// Routes live in the URL's hash so the scheduler serves one page for all.
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { getToken, setToken } from "./api";
import type { ComponentType } from "preact";
import { ApprovalsPage } from "./pages/approvals";
import { AuditPage } from "./pages/audit";
import { CachePage } from "./pages/cache";
import { RunPage } from "./pages/run";
import { RunsPage } from "./pages/runs";
import { SchedulesPage } from "./pages/schedules";
import { SignIn } from "./pages/signin";
import { TriggersPage } from "./pages/triggers";
import { UsagePage } from "./pages/usage";
import { WorkersPage } from "./pages/workers";

// The sections of the top navigation, in its order: `#/<path>` shows
// `page`. A new section is one entry here and one page in pages/.
const SECTIONS: { path: string; label: string; page: ComponentType }[] = [
  { path: "runs", label: "Runs", page: RunsPage },
  { path: "approvals", label: "Approvals", page: ApprovalsPage },
  { path: "schedules", label: "Schedules", page: SchedulesPage },
  { path: "triggers", label: "Triggers", page: TriggersPage },
  { path: "usage", label: "Usage", page: UsagePage },
  { path: "audit", label: "Audit", page: AuditPage },
  { path: "workers", label: "Workers", page: WorkersPage },
  { path: "cache", label: "Cache", page: CachePage },
];

// `taskboard dev` prints a link ending in `#token=...`: this session's
// console token. It signs in at once and leaves the address bar (and so the
// history and any screenshot of it) straight away.
function signInFromLink(): void {
  const match = /^#token=([A-Za-z0-9._~-]+)$/.exec(location.hash);
  if (!match) return;
  setToken(match[1]);
  sessionStorage.setItem("taskboard.signedIn", "1");
  history.replaceState(null, "", location.pathname + location.search + "#/runs");
}
signInFromLink();

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return hash;
}

function App() {
  const hash = useHash();
  const [signedIn, setSignedIn] = useState(sessionStorage.getItem("taskboard.signedIn") === "1");
  if (!signedIn) {
    return (
      <SignIn
        onSignedIn={(token) => {
          setToken(token);
          sessionStorage.setItem("taskboard.signedIn", "1");
          setSignedIn(true);
        }}
      />
    );
  }
  const path = hash.replace(/^#/, "") || "/runs";
  const [, section, id, taskId] = path.split("/").map(decodeURIComponent);
  const Section = SECTIONS.find((s) => s.path === section)?.page ?? RunsPage;
  const page = section === "runs" && id ? <RunPage runId={id} taskId={taskId} /> : <Section />;
  const link = (to: string, label: string) => (
    <a key={to} href={`#/${to}`} aria-current={section === to ? "page" : undefined}>
      {label}
    </a>
  );
  return (
    <>
      <header class="top">
        <span class="brand">Taskboard</span>
        <nav aria-label="Sections">
          {SECTIONS.map((s) => link(s.path, s.label))}
        </nav>
        <button
          class="link"
          onClick={() => {
            setToken(null);
            sessionStorage.removeItem("taskboard.signedIn");
            setSignedIn(false);
          }}
        >
          Sign out{getToken() ? "" : " (no token)"}
        </button>
      </header>
      <main>{page}</main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
