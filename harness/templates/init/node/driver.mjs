#!/usr/bin/env node
// Driver protocol v1 (docs/driver-protocol.md) for an adapter of the __PROFILE__ profile.
//
// Written by `agy-harness init`. agy-harness starts this program with the command of
// __CONFIG__ and sends one JSON request per line on stdin; each `op*` function below
// answers one op by calling your adapter. Until you fill one in, it fails its op with
// the error `NotImplemented`. Plain JavaScript with JSDoc types: Node 20 runs it as is,
// and `tsc --checkJs` checks it.
//
// The environment (docs/driver-protocol.md, "Process and environment"): `HOME` is a
// sandbox, `PATH` starts with fake-agy installed as `agy` (`AGY_BIN` overrides it),
// `AGY_DRIVER_WORK_DIR` is the adapter's workspace and the cwd, `AGY_DRIVER_STATE_DIR`
// survives a restart, and `AGY_HARNESS_TIME_SCALE` multiplies the adapter's own waits.

import { createInterface } from "node:readline";

/** @typedef {{v: number, id: number, op: string, [key: string]: unknown}} Request */

const PROFILES = ["__PROFILE__"];

/** A failed op: `name` is your adapter's error name, mapped to an outcome class by
 * `[errors]` in the adapter config unless `outcome` is given. */
class OpError extends Error {
  /**
   * @param {string} name
   * @param {string} message
   * @param {{outcome?: string, retryable?: boolean}} [options]
   */
  constructor(name, message, options = {}) {
    super(message);
    this.errorName = name;
    this.outcome = options.outcome;
    this.retryable = options.retryable;
  }
}

/** @param {string} op @param {string} fn */
function notImplemented(op, fn) {
  return new OpError("NotImplemented", `op \`${op}\` is not implemented yet: fill in ${fn} in driver.mjs`);
}
__STUBS__
/** @type {Record<string, (req: Request) => Promise<object | undefined>>} */
const OPS = {
__DISPATCH__};

/** @param {Request} req @returns {Promise<object | undefined>} */
async function answer(req) {
  if (req.op === "hello") return { driver: "__NAME__", profiles: PROFILES };
  if (req.op === "shutdown") return {};
  const handler = OPS[req.op];
  if (!handler) throw new OpError("Unsupported", `op \`${req.op}\` is not one this driver implements`, { outcome: "permanent" });
  return handler(req);
}

// Logs go to stderr: anything else on stdout breaks the protocol stream.
console.log = console.error;
// One request at a time: each is awaited before the next line is read. The harness may
// send requests together (oneshot's two-concurrent-generations): to serve them at once,
// start each request's work without awaiting it here (replies go by `id`, in any order).
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  /** @type {Request} */
  const req = JSON.parse(line);
  /** @type {Record<string, unknown>} */
  const reply = { id: req.id };
  try {
    reply.ok = true;
    reply.result = (await answer(req)) ?? {};
  } catch (e) {
    if (!(e instanceof OpError)) throw e;
    Object.assign(reply, { ok: false, error: { name: e.errorName, message: e.message } });
    delete reply.result;
    if (e.outcome !== undefined) reply.outcome = e.outcome;
    if (e.retryable !== undefined) reply.retryable = e.retryable;
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
  if (req.op === "shutdown") break;
}
