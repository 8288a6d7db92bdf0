import { ago, when } from "../format";

// A time as "12.0 s ago", the instant in its title (hover, screen readers).
export function Ago({ at }: { at: string | undefined }) {
  if (!at) return <>—</>;
  return (
    <time dateTime={at} title={when(at)}>
      {ago(at)}
    </time>
  );
}
