// Child processes for the deploy test: started with their output kept in a
// log file, stopped with SIGTERM (SIGKILL after a deadline), and waited for.

import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const STOP_DEADLINE_MS = 10_000;

const exited = (child) => child.exitCode !== null || child.signalCode !== null;

export class Processes {
  constructor(binDir, logDir) {
    this.binDir = binDir;
    this.logDir = logDir;
    this.children = [];
  }

  // Starts binDir/binary; its stdout and stderr go to logDir/<name>.log
  // (name: the binary's by default) when it exits.
  start(binary, args, env = {}, name = binary) {
    const child = spawn(join(this.binDir, binary), args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    child.logName = name;
    child.closed = new Promise((done) => child.on("close", done)).then(() =>
      writeFileSync(join(this.logDir, `${name}.log`), Buffer.concat(chunks)),
    );
    child.on("error", () => {}); // reported as an exit by waitForFile
    this.children.push(child);
    return child;
  }

  // Stops every child (SIGTERM, then SIGKILL after STOP_DEADLINE_MS) and
  // waits until their logs are written.
  async stopAll() {
    for (const child of this.children) if (!exited(child)) child.kill("SIGTERM");
    const timer = setTimeout(() => {
      for (const child of this.children) if (!exited(child)) child.kill("SIGKILL");
    }, STOP_DEADLINE_MS);
    await Promise.all(this.children.map((child) => child.closed));
    clearTimeout(timer);
  }

  // The last lines of every log, for a failure message.
  logTails(lines = 15) {
    return this.children
      .map((child) => join(this.logDir, `${child.logName}.log`))
      .filter(existsSync)
      .map((log) => `--- ${log}\n${readFileSync(log, "utf8").split("\n").slice(-lines).join("\n")}`)
      .join("\n");
  }
}

// The trimmed contents of `path` once `child` has written it; throws when
// the child exits first or `deadlineMs` passes.
export async function waitForFile(path, child, deadlineMs) {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    if (exited(child)) throw new Error(`${child.spawnfile} exited before writing ${path}`);
    if (existsSync(path)) {
      const text = readFileSync(path, "utf8").trim();
      if (text !== "") return text;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`${child.spawnfile} did not write ${path} within ${deadlineMs} ms`);
}
