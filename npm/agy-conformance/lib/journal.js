// fake-agy's journal read into plain objects: one record per invocation, finished ones
// in the order they ended, then those still running (or killed) from their live copy
// in `<journal>.live/<pid>-<started_us>.jsonl`, as agy-protocol's reader folds it.
//
// fake-agy writes while this reads, so it reads what its protocol lets be seen: a last
// line without its newline is a final record still being appended, not yet a record; a
// live copy removed between listing and reading has ended. Live copies are read before
// final records, so an invocation ending meanwhile (final record appended, then live
// copy removed) is seen once, as one or the other, and never missed.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every invocation of the journal at `path` (none when the file does not exist). */
export function readJournal(path) {
  const live = readLive(`${path}.live`);
  const finished = completeLines(readOrNull(path) ?? Buffer.alloc(0))
    .toString("utf8")
    .split("\n")
    .map((line, i) => [line, i + 1])
    .filter(([line]) => line.trim())
    .map(([line, number]) => parseRecord(line, path, number));
  const seen = new Set(finished.map((r) => `${r.pid}:${r.started_us}`));
  const running = live
    .filter((r) => !seen.has(`${r.pid}:${r.started_us}`))
    .sort((a, b) => a.started_us - b.started_us);
  return [...finished, ...running].map(invocation);
}

/** The folded live copies in `dir`; a copy removed since the listing has ended. */
function readLive(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch (e) {
    if (e.code === "ENOENT" || e.code === "ENOTDIR") return [];
    throw e;
  }
  return names
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => readOrNull(join(dir, f)))
    .filter((data) => data !== null)
    .map((data) => foldLive(completeLines(data).toString("utf8")))
    .filter((r) => r);
}

/** The file's bytes, or null when it does not exist (any more). */
function readOrNull(path) {
  try {
    return readFileSync(path);
  } catch (e) {
    if (e.code === "ENOENT") return null;
    throw e;
  }
}

/** What a writer has finished: everything up to the last newline (a line is written
 * with its newline in one write call). */
function completeLines(data) {
  return data.subarray(0, data.lastIndexOf(0x0a) + 1);
}

function parseRecord(line, path, number) {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw new Error(`${path}:${number}:1: journal record is not valid JSON: ${e.message}`);
  }
}

function foldLive(text) {
  let record = null;
  const lines = [];
  const signals = [];
  const files = [];
  let bytes = 0;
  for (const line of text.split("\n")) {
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line torn by a kill
    }
    const [[kind, body]] = Object.entries(entry ?? { "": null });
    if (kind === "head") record = body;
    else if (kind === "stdin_line") {
      lines.push(body.line);
      bytes = body.bytes;
    } else if (kind === "line_rule" && lines[body.index - 1]) lines[body.index - 1].rule = body.rule;
    else if (kind === "signal") signals.push(body);
    else if (kind === "file") files.push(body);
  }
  if (!record) return null;
  const stdin = { ...record.stdin, lines, bytes: Math.max(record.stdin?.bytes ?? 0, bytes) };
  return { ...record, complete: false, stdin, signals, files };
}

/** One journal record with the fields a test asks about most. */
function invocation(record) {
  const argv = record.argv ?? [];
  const args = argv.slice(1);
  const flagValue = (flag) => {
    for (let i = 0; i < args.length; i++) {
      if (args[i] === flag) return args[i + 1] ?? null;
      if (args[i].startsWith(`${flag}=`)) return args[i].slice(flag.length + 1);
    }
    return null;
  };
  return {
    record,
    argv,
    args,
    pid: record.pid,
    complete: Boolean(record.complete),
    prompt: flagValue("-p") ?? flagValue("--print"),
    stdinLines: (record.stdin?.lines ?? []).map((l) => l.text),
    stdinClosed: record.stdin?.closed_us != null,
    signals: (record.signals ?? []).map((s) => s.signal),
    exitCode: record.exit?.code ?? null,
    exitSignal: record.exit?.signal ?? null,
    files: (record.files ?? []).map((f) => f.path),
    flagValue,
    hasArg(token) {
      const [flag, ...rest] = token.split(" ");
      if (!rest.length) return args.includes(token);
      const value = rest.join(" ");
      return args.some((a, i) => (a === flag && args[i + 1] === value) || a === `${flag}=${value}`);
    },
  };
}
