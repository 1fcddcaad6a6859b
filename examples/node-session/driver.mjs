#!/usr/bin/env node
// @ts-check
// Driver protocol v1 (docs/driver-protocol.md) for the session adapter of
// conversation.mjs: JSON lines on stdin, one reply per request. Requests are handled as
// they arrive; the ops of one session run in order, and `cancel` reaches the turn that
// is running. Replies carry their `outcome`, so adapter.toml needs no `[errors]` table.

import { Conversation, TurnError } from "./conversation.mjs";
import { readLines } from "./lines.mjs";

/** @typedef {{v: number, id: number, op: string, session?: string, text?: string, model?: string, effort?: string, permission?: string}} Request */

const env = {
  agyBin: process.env.AGY_BIN || "agy",
  workDir: process.env.AGY_DRIVER_WORK_DIR || process.cwd(),
  timeScale: Number(process.env.AGY_HARNESS_TIME_SCALE || "1") || 1,
};

/** @type {Map<string, {conversation: Conversation, queue: Promise<unknown>, turns: Set<AbortController>}>} */
const sessions = new Map();

/** @param {Record<string, unknown>} reply */
function send(reply) {
  process.stdout.write(JSON.stringify(reply) + "\n");
}

/** @param {string} message */
function badRequest(message) {
  return new TurnError("BadRequestError", "permanent", message);
}

/** @param {Request} req */
function sessionOf(req) {
  const s = sessions.get(String(req.session));
  if (!s) throw badRequest(`no open session \`${req.session}\``);
  return s;
}

/**
 * Runs `work` after the session's earlier ops.
 * @template T @param {{queue: Promise<unknown>}} s @param {() => Promise<T>} work @returns {Promise<T>}
 */
function inOrder(s, work) {
  const next = s.queue.then(work, work);
  s.queue = next.catch(() => {});
  return next;
}

/** @param {Request} req @returns {Promise<Record<string, unknown> | undefined>} */
async function answer(req) {
  switch (req.op) {
    case "hello":
      return { driver: "node-session example", profiles: ["session"] };
    case "open": {
      const handle = String(req.session ?? "");
      if (!handle || sessions.has(handle)) throw badRequest(`session \`${handle}\` cannot be opened twice`);
      const selection = { model: req.model, effort: req.effort, permission: req.permission };
      sessions.set(handle, { conversation: new Conversation(env, selection), queue: Promise.resolve(), turns: new Set() });
      return undefined;
    }
    case "turn": {
      const s = sessionOf(req);
      // Cancellable from its arrival: a cancel sent right after the turn, before the
      // turn's work starts, still reaches it.
      const abort = new AbortController();
      s.turns.add(abort);
      return inOrder(s, async () => {
        try {
          const { text, usage } = await s.conversation.turn(String(req.text ?? ""), abort.signal);
          return { text, history: s.conversation.history, usage };
        } finally {
          s.turns.delete(abort);
        }
      });
    }
    case "select": {
      const s = sessionOf(req);
      return inOrder(s, async () => {
        await s.conversation.select({ model: req.model, effort: req.effort, permission: req.permission });
        return undefined;
      });
    }
    case "cancel":
      for (const abort of sessionOf(req).turns) abort.abort();
      return undefined;
    case "close": {
      const s = sessionOf(req);
      return inOrder(s, async () => {
        await s.conversation.release();
        sessions.delete(String(req.session));
        return { history: s.conversation.history };
      });
    }
    case "shutdown":
      await Promise.all([...sessions.values()].map((s) => s.conversation.release()));
      return undefined;
    default:
      throw badRequest(`op \`${req.op}\` is not one this driver implements`);
  }
}

/** @param {Request} req */
async function handle(req) {
  try {
    const result = await answer(req);
    send({ id: req.id, ok: true, outcome: "success", result: result ?? {} });
  } catch (e) {
    if (!(e instanceof TurnError)) throw e;
    send({ id: req.id, ok: false, outcome: e.outcome, retryable: e.retryable, error: { name: e.errorName, message: e.message } });
  }
  if (req.op === "shutdown") process.exit(0);
}

readLines(process.stdin, {
  onLine: (line) => {
    if (!line.trim()) return;
    /** @type {Request} */
    let req;
    try {
      req = JSON.parse(line);
    } catch {
      process.stderr.write(`node-session driver: a request that is not JSON: ${line.slice(0, 200)}\n`);
      return;
    }
    void handle(req);
  },
  onOverlong: (bytes) => process.stderr.write(`node-session driver: a request of ${bytes} bytes, skipped\n`),
  onEnd: () => {
    void Promise.all([...sessions.values()].map((s) => s.conversation.release())).then(() => process.exit(0));
  },
});
