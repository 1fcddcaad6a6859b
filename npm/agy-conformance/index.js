// agy-conformance for Node: fake-agy as `agy` in a sandbox, for node:test and vitest.
// See docs/node.md in the agy-conformance repository.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { binaryPath } from "./lib/binaries.js";
import { readJournal } from "./lib/journal.js";
import { made, removeMade } from "./lib/removal.js";
import { scriptText } from "./lib/script.js";

export { BINARIES, binaryPath } from "./lib/binaries.js";
export { readJournal } from "./lib/journal.js";
export { renderScript } from "./lib/script.js";

const shQuote = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/**
 * The variables that give agy the user's credentials or point it at the user's profile
 * (agy-protocol's AGY_USER_VARS, docs/agy-reference.md §5.1): a sandbox's `env` drops them.
 */
export const AGY_USER_VARS = [
  "ANTIGRAVITY_APP_DATA_DIR",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_CLOUD_LOCATION",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "CLOUDSDK_CONFIG",
];

/** Writes an executable shell script atomically. */
function writeScript(path, lines) {
  writeFileSync(`${path}.tmp`, lines.join("\n") + "\n");
  chmodSync(`${path}.tmp`, 0o755);
  renameSync(`${path}.tmp`, path);
}

/** This process's environment without AGY_USER_VARS. */
function userEnvWithoutCredentials() {
  const env = { ...process.env };
  for (const name of AGY_USER_VARS) delete env[name];
  return env;
}

/**
 * The calibration file (a path from the current folder, or a file URL), absolute: fake-agy
 * runs in other folders. A path that names no file throws at once.
 */
function calibrationPath(calibration) {
  const path = calibration instanceof URL ? fileURLToPath(calibration) : resolve(String(calibration));
  let file = false;
  try {
    file = statSync(path).isFile();
  } catch {
    // reported below
  }
  if (!file) {
    throw new Error(
      `failed to find the calibration \`${calibration}\`: no file at \`${path}\`\n` +
        "help: write one with `agy-harness calibrate … --out agy.toml` or `agy-harness learn`",
    );
  }
  return path;
}

/**
 * A sandbox with fake-agy as `agy`: `home/` (agy's brain folder lands under it),
 * `work/`, `bin/agy` (a shell script that exports the sandbox's knobs and execs
 * fake-agy: same pid, same signals) and the journal.
 */
export function fakeAgy({ script, version, calibration, signedOut, quotaExhausted, timeScale, dir } = {}) {
  const calibrationFile = calibration === undefined ? undefined : calibrationPath(calibration);
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
  if (calibrationFile !== undefined) knobs.FAKE_AGY_CALIBRATION = calibrationFile;
  if (signedOut) knobs.FAKE_AGY_SIGNED_OUT = "1";
  if (quotaExhausted) knobs.FAKE_AGY_QUOTA_EXHAUSTED = "1";
  if (timeScale !== undefined) knobs.FAKE_AGY_TIME_SCALE = String(timeScale);
  const wrapper = [
    "#!/bin/sh",
    "# fake-agy in an agy-conformance sandbox",
    ...Object.entries(knobs).map(([k, v]) => `export ${k}=${shQuote(v)}`),
    `exec ${shQuote(binaryPath("fake-agy"))} "$@"`,
  ];
  writeScript(agy, wrapper);
  // fake-agy-acp as `agy_acp_server`, so a real Antigravity ACP server later on PATH is
  // never the one an ACP client finds by name.
  const acpServer = join(root, "bin", "agy_acp_server");
  writeScript(acpServer, [
    "#!/bin/sh",
    "# fake-agy-acp in an agy-conformance sandbox",
    `export HOME=${shQuote(home)}`,
    `exec ${shQuote(binaryPath("fake-agy-acp"))} "$@"`,
  ]);
  const binDir = join(root, "bin");
  return {
    root,
    agy,
    home,
    workDir: join(root, "work"),
    brainDir: join(home, ".gemini", "antigravity-cli", "brain"),
    journalPath,
    acpServer,
    /**
     * This process's environment without agy's credential variables (AGY_USER_VARS),
     * with the sandbox's HOME, PATH (agy and agy_acp_server first), AGY_BIN and AGY_ACP_BIN.
     */
    env: {
      ...userEnvWithoutCredentials(),
      HOME: home,
      PATH: [binDir, process.env.PATH].filter(Boolean).join(delimiter),
      AGY_BIN: agy,
      AGY_ACP_BIN: acpServer,
    },
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
