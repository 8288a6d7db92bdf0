// A read the page repeats every few seconds (pending approvals, workers,
// cache statistics, schedules): its last answer, its last error, and a
// reload for after an action. A successful answer clears the error.
import { useEffect, useState } from "preact/hooks";
import { call } from "./api";

export const POLL_MS = 5000;

export function usePolledWith<T>(load: () => Promise<T>) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const reload = () =>
    load()
      .then((answer) => {
        setData(answer);
        setError(null);
      })
      .catch(setError);
  useEffect(() => {
    void reload();
    const timer = setInterval(reload, POLL_MS);
    return () => clearInterval(timer);
  }, []);
  return { data, error, setError, reload };
}

export function usePolled<T>(method: string, body: object = {}) {
  return usePolledWith<T>(() => call<T>(method, body));
}
