// @ts-check
// One conversation of a chat host: its model/effort/permission selection, its kept agy
// process, and its history. The decisions are seed 000's (docs/contract.md, `session`):
// - a successful turn keeps the process: the next turn is the next stdin line;
// - every other outcome, and a changed selection, releases it; the next turn starts a
//   new process that resumes the conversation with `--conversation <id>`;
// - replayed output is not a new turn: a result identical to the last one counted, and
//   steps below the turn's first step index, belong to earlier turns;
// - a failure stays a failure, including a SUCCESS whose `num_turns` did not advance.

import { AgyProcess } from "./agy-process.mjs";

/** Seconds one turn may take before it is given up (scaled). */
export const TURN_TIMEOUT_S = 600;

/** @typedef {{model?: string, effort?: string, permission?: string}} Selection */
/** @typedef {{role: "user" | "assistant", text: string, turn: number}} HistoryEntry */
/** @typedef {{input_tokens: number, output_tokens: number, total_tokens: number}} Usage */

/** A failed turn: `name` is this adapter's error name, `outcome` its class. */
export class TurnError extends Error {
  /** @param {string} name @param {"timeout" | "transient" | "auth" | "permanent"} outcome @param {string} message */
  constructor(name, outcome, message) {
    super(message);
    this.errorName = name;
    this.outcome = outcome;
    this.retryable = outcome === "timeout" || outcome === "transient";
  }
}

export class Conversation {
  /**
   * @param {{agyBin: string, workDir: string, timeScale: number}} env
   * @param {Selection} selection
   */
  constructor(env, selection) {
    this.env = env;
    this.selection = { ...selection };
    /** @type {AgyProcess | null} */
    this.process = null;
    /** @type {HistoryEntry[]} */
    this.history = [];
    this.turns = 0;
    /** @type {string | null} */
    this.conversationId = null;
    this.processesStarted = 0;
  }

  /** Applies a new selection; a real change releases the kept process. @param {Selection} next */
  async select(next) {
    const merged = { ...this.selection };
    for (const key of /** @type {(keyof Selection)[]} */ (["model", "effort", "permission"])) {
      if (next[key] !== undefined && next[key] !== null) merged[key] = next[key];
    }
    const changed = ["model", "effort", "permission"].some(
      (k) => merged[/** @type {keyof Selection} */ (k)] !== this.selection[/** @type {keyof Selection} */ (k)]);
    this.selection = merged;
    if (changed) await this.release();
  }

  async release() {
    const p = this.process;
    this.process = null;
    if (p) await p.release(this.env.timeScale);
  }

  /** agy's argv for a new process of this conversation. @returns {string[]} */
  argv() {
    const argv = ["--input-format", "stream-json", "--output-format", "stream-json"];
    if (this.selection.model) argv.push("--model", this.selection.model);
    if (this.selection.effort) argv.push("--effort", this.selection.effort);
    if (this.selection.permission === "skip") argv.push("--dangerously-skip-permissions");
    argv.push("--add-dir", this.env.workDir);
    // Only a conversation continued on a new process resumes by id; the kept process
    // needs no `--conversation`.
    if (this.processesStarted > 0 && this.conversationId) argv.push("--conversation", this.conversationId);
    return argv;
  }

  /** @returns {Promise<AgyProcess>} */
  async liveProcess() {
    if (this.process?.hasExited) await this.release();
    if (this.process) return this.process;
    try {
      this.process = await AgyProcess.start(this.env.agyBin, this.argv(), this.env.workDir);
    } catch (e) {
      const err = /** @type {NodeJS.ErrnoException} */ (e);
      const hint = err.code === "ENOENT" ? "; install Antigravity CLI (or set AGY_BIN)" : "";
      throw new TurnError("TurnFailedError", "permanent", `failed to start \`${this.env.agyBin}\`: ${err.message}${hint}`);
    }
    this.processesStarted += 1;
    return this.process;
  }

  /**
   * One turn: the user line on the kept process, then its output up to this turn's
   * result.
   * @param {string} text
   * @param {AbortSignal} abort
   * @returns {Promise<{text: string, usage: Usage}>}
   */
  async turn(text, abort) {
    const p = await this.liveProcess();
    p.send(text);
    const previous = p.baseline.lastResult;
    const filter = new TurnFilter(p.baseline);
    const stop = await this.awaitResult(p, filter, abort);
    if (stop.kind !== "result") {
      await this.release();
      throw stop.error;
    }
    const { result, line } = stop;
    p.baseline = { lastResultLine: line, lastResult: result, maxStep: filter.maxSeen };
    if (result.conversation_id) this.conversationId = result.conversation_id;
    const failure = judge(result, previous);
    if (failure) {
      await this.release();
      throw failure;
    }
    const answer = filter.text() || result.response || "";
    this.turns += 1;
    this.history.push({ role: "user", text, turn: this.turns }, { role: "assistant", text: answer, turn: this.turns });
    return { text: answer, usage: filter.usage() };
  }

  /**
   * @param {AgyProcess} p @param {TurnFilter} filter @param {AbortSignal} abort
   * @returns {Promise<{kind: "result", result: any, line: string} | {kind: "failed", error: TurnError}>}
   */
  async awaitResult(p, filter, abort) {
    const seconds = TURN_TIMEOUT_S * this.env.timeScale;
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const timedOut = new Promise((resolve) => { timer = setTimeout(() => resolve("timeout"), seconds * 1000); });
    const aborted = new Promise((resolve) => {
      if (abort.aborted) resolve("cancel");
      abort.addEventListener("abort", () => resolve("cancel"), { once: true });
    });
    let lastUnparsed = "";
    try {
      for (;;) {
        const out = await Promise.race([p.next(), timedOut, aborted]);
        if (out === "timeout") {
          return { kind: "failed", error: new TurnError("TurnTimeoutError", "timeout", `no result within ${seconds} s; agy was released`) };
        }
        if (out === "cancel") {
          return { kind: "failed", error: new TurnError("TurnCancelledError", "transient", "the turn was cancelled; agy was released") };
        }
        const o = /** @type {import("./agy-process.mjs").Output} */ (out);
        if (o.kind === "unparsed") {
          lastUnparsed = o.line;
        } else if (o.kind === "end") {
          await p.exited;
          const garbage = lastUnparsed ? `; last unparsed stdout line: ${JSON.stringify(lastUnparsed.slice(-200))}` : "";
          return { kind: "failed", error: new TurnError("TurnFailedError", "permanent",
            `agy exited (exit code ${p.exitCode ?? "none: killed by a signal"}) before the turn's result; stderr: ${p.stderr.trim() || "(empty)"}${garbage}`) };
        } else {
          if (o.event.event === "init" && o.event.conversation_id) this.conversationId = o.event.conversation_id;
          if (filter.offer(o.event, o.line)) return { kind: "result", result: o.event.result, line: o.line };
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Which of a process's events belong to the turn being run. */
class TurnFilter {
  /** @param {AgyProcess["baseline"]} baseline */
  constructor(baseline) {
    this.baseline = baseline;
    this.floor = baseline.maxStep === null ? 0 : baseline.maxStep + 1;
    /** @type {number | null} */
    this.maxSeen = baseline.maxStep;
    /** @type {any[]} */
    this.steps = [];
  }

  /**
   * Takes one event; true when it is this turn's result.
   * @param {Record<string, any>} event @param {string} line
   */
  offer(event, line) {
    if (event.event === "step_update") {
      const step = event.step_update ?? {};
      const index = Number(step.step_index ?? 0);
      this.maxSeen = this.maxSeen === null ? index : Math.max(this.maxSeen, index);
      if (index < this.floor) return false; // an earlier turn's step, late or replayed
      // The turn's own user_input step is its first: anything accepted below it was an
      // earlier turn's after all.
      if (step.step_type === "user_input" && index > this.floor) {
        this.floor = index;
        this.steps = this.steps.filter((s) => Number(s.step_index) >= index);
      }
      this.steps.push(step);
      return false;
    }
    if (event.event === "result") {
      const previous = this.baseline.lastResult;
      // A byte-identical copy of the last result counted, with no new turn, is a replay.
      const replay = previous !== null && line === this.baseline.lastResultLine
        && Number(event.result?.num_turns) <= Number(previous.num_turns);
      return !replay;
    }
    return false;
  }

  /** The text this turn's own agent_response steps streamed. */
  text() {
    return this.steps.filter((s) => s.step_type === "agent_response").map((s) => s.text_delta ?? "").join("");
  }

  /** The sum of this turn's own steps' usage: a late step of an earlier turn is not its cost. @returns {Usage} */
  usage() {
    const sum = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    for (const s of this.steps) {
      for (const k of /** @type {(keyof Usage)[]} */ (Object.keys(sum))) sum[k] += Number(s.usage?.[k] ?? 0);
    }
    return sum;
  }
}

/**
 * What a counted result means for the turn: null for a success.
 * @param {any} result @param {any} previous @returns {TurnError | null}
 */
function judge(result, previous) {
  const status = String(result?.status ?? "");
  const error = String(result?.error ?? "").trim().slice(0, 400);
  if (status === "SUCCESS") {
    // An expired --print-timeout: SUCCESS, an empty response and every usage counter 0
    // (docs/agy-reference.md §2.4). Never an answer.
    const counters = Object.values(result?.usage ?? {}).map(Number);
    if (!String(result?.response ?? "").trim() && counters.every((n) => n === 0)) {
      return new TurnError("TurnTimeoutError", "timeout",
        "agy print timeout: SUCCESS with an empty response and zero usage");
    }
    if (previous && Number(result.num_turns) <= Number(previous.num_turns)) {
      return new TurnError("TurnFailedError", "permanent",
        `agy's num_turns did not advance (${result.num_turns} after ${previous.num_turns}): the result is not a new turn`);
    }
    return null;
  }
  if (status === "CANCELED" || status === "INTERRUPTED") return new TurnError("TurnTransientError", "transient", `agy status ${status}: ${error}`);
  if (/authentication (required|failed)/i.test(error)) return new TurnError("TurnAuthError", "auth", `agy is not signed in: ${error}`);
  return new TurnError("TurnFailedError", "permanent", `agy status ${status || "(none)"}: ${error}`);
}
