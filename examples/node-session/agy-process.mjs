// @ts-check
// One persistent `agy --input-format stream-json --output-format stream-json` process:
// its stdin, its stdout as a queue of parsed events, its stderr tail, and its release
// (stdin closed, then SIGTERM, then SIGKILL to its process group).

import { spawn } from "node:child_process";
import { readLines } from "./lines.mjs";

/** Seconds a released process gets to exit after stdin closes, before SIGTERM (scaled). */
export const STDIN_GRACE_S = 2;
/** Seconds after SIGTERM before SIGKILL (scaled). */
export const TERM_GRACE_S = 3;
const STDERR_TAIL = 2000;

/**
 * @typedef {{kind: "event", event: Record<string, any>, line: string}
 *   | {kind: "unparsed", line: string}
 *   | {kind: "end"}} Output
 */

export class AgyProcess {
  /**
   * Starts agy; rejects when the binary cannot be started (`error.code` is `ENOENT`
   * for a missing binary).
   * @param {string} bin
   * @param {string[]} argv
   * @param {string} cwd
   * @returns {Promise<AgyProcess>}
   */
  static async start(bin, argv, cwd) {
    // `detached`: its own process group, so a release reaches whatever agy started.
    const child = spawn(bin, argv, { cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
    await new Promise((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
    return new AgyProcess(child);
  }

  /** @param {import("node:child_process").ChildProcessWithoutNullStreams} child */
  constructor(child) {
    this.child = child;
    this.pid = child.pid;
    /** @type {Output[]} */
    this.queue = [];
    /** @type {((o: Output) => void) | null} */
    this.waiter = null;
    this.stderr = "";
    /** @type {number | null} */
    this.exitCode = null;
    this.exited = new Promise((resolve) => child.once("exit", (code) => {
      this.exitCode = code;
      resolve(undefined);
    }));
    this.hasExited = false;
    this.exited.then(() => { this.hasExited = true; });
    // A write to a process that has exited fails with EPIPE; its output says why.
    child.stdin.on("error", () => {});
    readLines(child.stdout, {
      onLine: (line) => {
        if (!line.trim()) return;
        try {
          const event = JSON.parse(line);
          if (event && typeof event === "object" && typeof event.event === "string") {
            this.push({ kind: "event", event, line });
            return;
          }
        } catch { /* not JSON: kept as unparsed */ }
        this.push({ kind: "unparsed", line });
      },
      onOverlong: (bytes) => this.push({ kind: "unparsed", line: `(a stdout line of ${bytes} bytes, skipped)` }),
      onEnd: () => this.push({ kind: "end" }),
    });
    child.stderr.on("data", (/** @type {Buffer} */ chunk) => {
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    /** What this process has shown: the last result counted and the highest step index. */
    this.baseline = { /** @type {string | null} */ lastResultLine: null, /** @type {any} */ lastResult: null, /** @type {number | null} */ maxStep: null };
  }

  /** @param {Output} output */
  push(output) {
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w(output);
    } else {
      this.queue.push(output);
    }
  }

  /**
   * The next output line; after the end, `{kind: "end"}` again.
   * @returns {Promise<Output>}
   */
  next() {
    const head = this.queue.shift();
    if (head) {
      if (head.kind === "end") this.queue.unshift(head);
      return Promise.resolve(head);
    }
    return new Promise((resolve) => { this.waiter = resolve; });
  }

  /** Writes one user line (a write error surfaces as the process's end). @param {string} text */
  send(text) {
    const line = JSON.stringify({ event: "user", message: { role: "user", content: text } });
    this.child.stdin.write(line + "\n");
  }

  /** @param {NodeJS.Signals} signal */
  signalGroup(signal) {
    try {
      if (this.pid !== undefined) process.kill(-this.pid, signal);
    } catch { /* the group is gone already */ }
  }

  /**
   * Ends the process: stdin closed, SIGTERM after the stdin grace, SIGKILL after the
   * term grace; resolves once it has exited.
   * @param {number} timeScale
   */
  async release(timeScale) {
    this.child.stdin.end();
    if (await exitsWithin(this, STDIN_GRACE_S * timeScale)) return;
    this.signalGroup("SIGTERM");
    if (await exitsWithin(this, TERM_GRACE_S * timeScale)) return;
    this.signalGroup("SIGKILL");
    await this.exited;
  }
}

/** @param {AgyProcess} p @param {number} seconds @returns {Promise<boolean>} */
async function exitsWithin(p, seconds) {
  if (p.hasExited) return true;
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(false), seconds * 1000); });
  const exited = await Promise.race([p.exited.then(() => true), timeout]);
  clearTimeout(timer);
  return /** @type {boolean} */ (exited);
}
