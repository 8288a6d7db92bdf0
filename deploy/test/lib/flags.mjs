// The command lines of the containers, checked against the flags the real
// binaries accept (their --help), so a manifest never passes a flag or a
// TASKBOARD_* variable that does not exist.

// {flags: Set<"--name">, env: Set<"TASKBOARD_...">} from a CLI11 --help text.
export function parseHelp(text) {
  const flags = new Set();
  const env = new Set();
  for (const line of text.split("\n")) {
    const flag = line.match(/^\s+(?:-\w,)?(--[a-z0-9][a-z0-9-]*)/);
    if (flag) flags.add(flag[1]);
    for (const [, name] of line.matchAll(/Env:([A-Z0-9_]+)/g)) env.add(name);
  }
  return { flags, env };
}

// Map<"--flag", value> of an argument list: `--a=b`, `--a b`, or `--a`
// alone (value true).
export function parseArgs(args = []) {
  const parsed = new Map();
  for (let i = 0; i < args.length; i++) {
    const arg = String(args[i]);
    if (!arg.startsWith("--")) continue;
    const equals = arg.indexOf("=");
    if (equals > 0) {
      parsed.set(arg.slice(0, equals), arg.slice(equals + 1));
    } else if (i + 1 < args.length && !String(args[i + 1]).startsWith("--")) {
      parsed.set(arg, String(args[++i]));
    } else {
      parsed.set(arg, true);
    }
  }
  return parsed;
}

// A flag's value from the args, else from its TASKBOARD_* env entry (a
// literal `value`), else `fallback`.
export function flagValue(container, flag, envName, fallback) {
  const fromArgs = parseArgs(container.args).get(flag);
  if (fromArgs !== undefined) return fromArgs;
  const fromEnv = (container.env ?? []).find((entry) => entry.name === envName);
  if (fromEnv?.value !== undefined) return fromEnv.value;
  return fallback;
}

// {host, port} of "host:port" (port a number, NaN when missing).
export function splitHostPort(address) {
  const colon = String(address).lastIndexOf(":");
  if (colon < 0) return { host: String(address), port: NaN };
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

// The binary a container runs, from its image name: ".../taskboard-worker:tag"
// -> "taskboard-worker".
export function binaryOf(container) {
  const image = String(container.image ?? "");
  const last = image.split("/").pop();
  return last.split("@")[0].split(":")[0];
}
