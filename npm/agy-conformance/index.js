// agy-conformance for Node: fake-agy as `agy` in a sandbox, for node:test and vitest.
// See docs/node.md in the agy-conformance repository.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { binaryPath } from "./lib/binaries.js";
import { readJournal } from "./lib/journal.js";
import { made, removeMade } from "./lib/removal.js";
import { scriptText } from "./lib/script.js";

export { BINARIES, binaryPath } from "./lib/binaries.js";
export { readJournal } from "./lib/journal.js";
export { renderScript } from "./lib/script.js";

const shQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * A sandbox with fake-agy as `agy`: `home/` (agy's brain folder lands under it),
 * `work/`, `bin/agy` (a shell script that exports the sandbox's knobs and execs
 * fake-agy: same pid, same signals) and the journal.
 */
export function fakeAgy({ script, version, signedOut, quotaExhausted, timeScale, dir } = {}) {
  const root = resolve(dir ?? mkdtempSync(join(tmpdir(), "fake-agy-")));
  // A new temporary folder is the sandbox's whole; a folder given is the sandbox's only
  // for what it adds (see lib/removal.js).
  const makes = made(root, dir === undefined ? root : mkdirSync(root, { recursive: true }));
  for (const sub of ["home", "work", "bin", "state"]) mkdirSync(join(root, sub), { recursive: true });
  const home = join(root, "home");
  const agy = join(root, "bin", "agy");
  const journalPath = join(root, "journal.jsonl");
  const knobs = { HOME: home, FAKE_AGY_JOURNAL: journalPath, FAKE_AGY_STATE_DIR: join(root, "state") };
  if (script !== undefined) {
    writeFileSync(join(root, "script.toml"), scriptText(script));
    knobs.FAKE_AGY_SCRIPT = join(root, "script.toml");
  }
  if (version !== undefined) knobs.FAKE_AGY_VERSION = String(version);
  if (signedOut) knobs.FAKE_AGY_SIGNED_OUT = "1";
  if (quotaExhausted) knobs.FAKE_AGY_QUOTA_EXHAUSTED = "1";
  if (timeScale !== undefined) knobs.FAKE_AGY_TIME_SCALE = String(timeScale);
  const wrapper = [
    "#!/bin/sh",
    "# fake-agy in an agy-conformance sandbox",
    ...Object.entries(knobs).map(([k, v]) => `export ${k}=${shQuote(v)}`),
    `exec ${shQuote(binaryPath("fake-agy"))} "$@"`,
  ];
  writeFileSync(`${agy}.tmp`, wrapper.join("\n") + "\n");
  chmodSync(`${agy}.tmp`, 0o755);
  renameSync(`${agy}.tmp`, agy);
  const binDir = join(root, "bin");
  return {
    root,
    agy,
    home,
    workDir: join(root, "work"),
    brainDir: join(home, ".gemini", "antigravity-cli", "brain"),
    journalPath,
    /** This process's environment with the sandbox's HOME, PATH (agy first) and AGY_BIN. */
    env: { ...process.env, HOME: home, PATH: [binDir, process.env.PATH].filter(Boolean).join(delimiter), AGY_BIN: agy },
    /** Every invocation so far: finished ones in the order they ended, running ones last. */
    journal: () => readJournal(journalPath),
    /**
     * Kills this sandbox's fake-agy processes that still run and removes what the sandbox
     * made: the folder when it made it, else only the entries it added, never through a link.
     */
    close() {
      const marker = `FAKE_AGY_JOURNAL=${journalPath}`;
      for (const inv of readJournal(journalPath).filter((i) => !i.complete)) {
        try {
          if (readFileSync(`/proc/${inv.pid}/environ`, "latin1").split("\0").includes(marker)) {
            process.kill(inv.pid, "SIGKILL");
          }
        } catch {
          // gone already
        }
      }
      removeMade(makes);
    },
  };
}
