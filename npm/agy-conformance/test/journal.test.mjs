// The journal reader while fake-agy writes: a half-appended final record and live
// copies that end between listing and reading.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Worker } from "node:worker_threads";
import { readJournal } from "agy-conformance";

const record = (pid, started, extra = {}) => ({ v: 1, complete: true, invocation: 1, pid, ppid: 1, argv: ["agy", "-p", "hi"], cwd: "/", env: {}, started_us: started, stdin: { bytes: 0 }, stdout_bytes: 0, stderr_bytes: 0, ...extra });

test("a final record still being appended is not yet a record", () => {
  const dir = mkdtempSync(join(tmpdir(), "journal-"));
  try {
    const journal = join(dir, "journal.jsonl");
    const first = Buffer.from(JSON.stringify(record(1, 1)) + "\n");
    const second = Buffer.from(JSON.stringify(record(2, 2, { argv: ["agy", "-p", "é".repeat(50)] })));
    writeFileSync(journal, Buffer.concat([first, second.subarray(0, second.indexOf(0xc3) + 1)]));
    assert.deepEqual(readJournal(journal).map((i) => i.pid), [1]);
    writeFileSync(journal, Buffer.concat([first, second, Buffer.from("\n")]));
    assert.deepEqual(readJournal(journal).map((i) => i.pid), [1, 2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// One invocation after another as fake-agy writes them (a live copy with a head and a
// stdin line, then the final record appended in one write, then the copy removed), a
// new journal every PER_JOURNAL, the one two before removed; progress[0] is the journal
// being written, progress[1] is 1 once all are written (or to stop the writer).
const WRITER = `
const { mkdirSync, writeFileSync, openSync, writeSync, closeSync, unlinkSync, rmSync } = require("node:fs");
const { join } = require("node:path");
const { root, perJournal, invocations, progress: shared } = require("node:worker_threads").workerData;
const progress = new Int32Array(shared);
const record = (pid, started) => ({ v: 1, complete: false, invocation: 1, pid, ppid: 1, argv: ["agy", "-p", started + " " + "x".repeat(5000)], cwd: "/", env: {}, started_us: started, stdin: { bytes: 0 }, stdout_bytes: 0, stderr_bytes: 0 });
for (let n = 0; n < invocations && Atomics.load(progress, 1) === 0; n++) {
  const round = Math.floor(n / perJournal);
  if (n % perJournal === 0) {
    Atomics.store(progress, 0, round);
    if (round >= 2) rmSync(join(root, "round-" + (round - 2)), { recursive: true });
  }
  const journal = join(root, "round-" + round, "journal.jsonl");
  mkdirSync(journal + ".live", { recursive: true });
  const copy = join(journal + ".live", (n + 1) + "-" + n + ".jsonl");
  const head = record(n + 1, n);
  const line = { at_us: n, text: "y".repeat(5000) };
  writeFileSync(copy, JSON.stringify({ head }) + "\\n" + JSON.stringify({ stdin_line: { line, bytes: 5001 } }) + "\\n");
  const fd = openSync(journal, "a");
  writeSync(fd, JSON.stringify({ ...head, complete: true, stdin: { bytes: 5001, lines: [line] }, exit: { code: 0 } }) + "\\n");
  closeSync(fd);
  unlinkSync(copy);
}
Atomics.store(progress, 1, 1);
`;

test("reads while invocations end never fail, see one twice or lose one", async () => {
  const root = mkdtempSync(join(tmpdir(), "journal-stress-"));
  const shared = new SharedArrayBuffer(8);
  const progress = new Int32Array(shared);
  const writer = new Worker(WRITER, { eval: true, workerData: { root, perJournal: 4, invocations: 400, progress: shared } });
  const ended = new Promise((resolve, reject) => writer.on("exit", resolve).on("error", reject));
  try {
    let seen = null;
    for (let reads = 1; reads <= 10_000 || Atomics.load(progress, 1) === 0; reads++) {
      const round = Atomics.load(progress, 0);
      const pids = readJournal(join(root, `round-${round}`, "journal.jsonl")).map((i) => i.pid);
      assert.equal(new Set(pids).size, pids.length, `read ${reads} saw an invocation twice: ${pids}`);
      if (Atomics.load(progress, 0) >= round + 2) {
        seen = null; // removed while read
        continue;
      }
      if (seen && seen.round === round) {
        const lost = [...seen.pids].filter((p) => !pids.includes(p));
        assert.deepEqual(lost, [], `read ${reads} lost invocations`);
      }
      seen = { round, pids: new Set(pids) };
    }
  } finally {
    Atomics.store(progress, 1, 1);
    await ended;
    rmSync(root, { recursive: true, force: true });
  }
});
