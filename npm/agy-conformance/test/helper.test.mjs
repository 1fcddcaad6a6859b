// The helper's own tests (scripts/test-packages runs them against the installed package).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AGY_USER_VARS, binaryPath, fakeAgy, readJournal, renderScript } from "agy-conformance";

test("an object script renders as inline TOML that Python's tomllib reads back", () => {
  const script = {
    invocation: [{ when: { prompt_contains: "x" }, steps: [{ default: { response: 'quote " del \x7f 🦀' } }, { exit: 1 }] }],
    "odd key": [0.5, -7, true, []],
  };
  const back = execFileSync("python3", ["-c", "import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))"], {
    input: renderScript(script),
  });
  assert.deepEqual(JSON.parse(back), script);
});

test("the journal folds live copies and ignores a torn line", () => {
  const dir = mkdtempSync(join(tmpdir(), "journal-"));
  try {
    const record = (pid, started) => ({ v: 1, complete: true, invocation: 1, pid, ppid: 1, argv: ["agy", "-p", "hi", "--model=m"], cwd: "/", env: {}, started_us: started, stdin: { bytes: 0 }, stdout_bytes: 0, stderr_bytes: 0 });
    const journal = join(dir, "journal.jsonl");
    writeFileSync(journal, JSON.stringify({ ...record(10, 5), exit: { code: 3 } }) + "\n");
    mkdirSync(`${journal}.live`);
    const live = [
      { head: { ...record(20, 7), complete: false } },
      { stdin_line: { line: { at_us: 1, text: "hello" }, bytes: 6 } },
      { line_rule: { index: 1, rule: "turn 1" } },
      { signal: { signal: "SIGTERM", at_us: 2 } },
    ];
    writeFileSync(join(`${journal}.live`, "20.jsonl"), live.map((l) => JSON.stringify(l)).join("\n") + '\n{"signal": {"sig');
    writeFileSync(join(`${journal}.live`, "10.jsonl"), JSON.stringify({ head: record(10, 5) }) + "\n");
    const [done, running, ...rest] = readJournal(journal);
    assert.equal(rest.length, 0, "a leftover live copy of a finished invocation is not counted twice");
    assert.equal(done.exitCode, 3);
    assert.equal(done.flagValue("--model"), "m");
    assert.ok(done.hasArg("--model m"));
    assert.equal(running.complete, false);
    assert.deepEqual(running.stdinLines, ["hello"]);
    assert.equal(running.record.stdin.lines[0].rule, "turn 1");
    assert.deepEqual(running.signals, ["SIGTERM"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the binaries come from the platform package and agy is fake-agy", () => {
  assert.match(binaryPath("agy-harness"), /@agy-conformance\/linux-x64\/bin\/agy-harness$/);
  const agy = fakeAgy({ version: "1.2.16" });
  try {
    assert.equal(execFileSync("agy", ["--version"], { env: agy.env, encoding: "utf8" }).trim(), "1.2.16");
    assert.equal(agy.journal().length, 1);
  } finally {
    agy.close();
  }
});

test("close kills a hung agy of the sandbox", async () => {
  const agy = fakeAgy({ script: "[[invocation]]\nsteps = [{ hang = true }]\n" });
  const { spawn } = await import("node:child_process");
  const child = spawn(agy.agy, ["-p", "hi", "--output-format", "json"], { env: agy.env, stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal)));
  const deadline = Date.now() + 30_000;
  while (agy.journal().length === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20)); // polling the journal for the live record, bounded
  }
  assert.equal(agy.journal()[0].complete, false);
  agy.close();
  assert.equal(await exited, "SIGKILL");
});

/** A project folder holding a file and a folder of its own. */
function project(root) {
  mkdirSync(join(root, "src"), { recursive: true });
  writeFileSync(join(root, "src", "main.js"), "mine\n");
  writeFileSync(join(root, "README.md"), "my project\n");
  return root;
}

const used = (agy) => {
  execFileSync(agy.agy, ["-p", "hello", "--output-format", "json"], { env: agy.env, cwd: agy.workDir });
  assert.ok(existsSync(agy.journalPath) && existsSync(agy.home));
};

test("close in a project given as dir removes what the sandbox made and leaves the project", () => {
  const tmp = mkdtempSync(join(tmpdir(), "project-"));
  try {
    const root = project(join(tmp, "project"));
    const agy = fakeAgy({ dir: root, script: "[[invocation]]\nsteps = [{ default = {} }]\n" });
    used(agy);
    agy.close();
    assert.deepEqual(readdirSync(root).sort(), ["README.md", "src"]);
    assert.equal(readFileSync(join(root, "src", "main.js"), "utf8"), "mine\n");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("folders of the layout that were there keep what was in them", () => {
  const tmp = mkdtempSync(join(tmpdir(), "project-"));
  try {
    const root = project(join(tmp, "project"));
    mkdirSync(join(root, "bin"));
    writeFileSync(join(root, "bin", "tool"), "#!/bin/sh\n");
    mkdirSync(join(root, "work"));
    writeFileSync(join(root, "work", "draft.txt"), "draft\n");
    const agy = fakeAgy({ dir: root });
    used(agy);
    agy.close();
    assert.deepEqual(readdirSync(root).sort(), ["README.md", "bin", "src", "work"]);
    assert.deepEqual(readdirSync(join(root, "bin")), ["tool"]);
    assert.equal(readFileSync(join(root, "work", "draft.txt"), "utf8"), "draft\n");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a folder the sandbox made goes whole with the parents it made", () => {
  const tmp = mkdtempSync(join(tmpdir(), "made-"));
  try {
    const agy = fakeAgy({ dir: join(tmp, "made", "sandbox") });
    used(agy);
    agy.close();
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("a link in the sandbox is removed and what it names stays", () => {
  const tmp = mkdtempSync(join(tmpdir(), "link-"));
  try {
    const token = join(tmp, "real-home", ".gemini", "antigravity-cli", "antigravity-oauth-token");
    mkdirSync(join(token, ".."), { recursive: true });
    writeFileSync(token, "real token");
    for (const dir of [join(tmp, "new"), project(join(tmp, "project")), undefined]) {
      const agy = fakeAgy({ dir });
      rmdirSync(agy.home);
      symlinkSync(join(tmp, "real-home"), agy.home);
      agy.close();
      assert.throws(() => lstatSync(agy.home), /ENOENT/, `${dir}`);
      assert.equal(readFileSync(token, "utf8"), "real token", `${dir}`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("the sandbox's env puts fake-agy-acp first as agy_acp_server and drops agy's credentials", () => {
  process.env.GEMINI_API_KEY = "a-real-key";
  process.env.GOOGLE_APPLICATION_CREDENTIALS = "/home/u/adc.json";
  const agy = fakeAgy();
  try {
    const which = (name) => execFileSync("/bin/sh", ["-c", `command -v ${name}`], { env: agy.env, encoding: "utf8" }).trim();
    assert.equal(which("agy"), agy.agy);
    assert.equal(which("agy_acp_server"), agy.acpServer);
    for (const name of AGY_USER_VARS) assert.equal(agy.env[name], undefined, name);
    assert.equal(agy.env.AGY_ACP_BIN, agy.acpServer);
  } finally {
    delete process.env.GEMINI_API_KEY;
    delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    agy.close();
  }
});

test("agy-harness started by the npm launcher dies when the launcher is SIGKILLed", async () => {
  const { spawn } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  // The installed package's launcher (the tests also run from a copy outside the tree).
  const launcher = fileURLToPath(new URL("./bin/agy-harness.js", import.meta.resolve("agy-conformance")));
  // A run whose driver never says hello: agy-harness waits for it (startup 300 s).
  const dir = mkdtempSync(join(tmpdir(), "agy-launcher-"));
  writeFileSync(
    join(dir, "adapter.toml"),
    '[adapter]\nname = "silent"\ncommand = ["/bin/sh", "-c", "exec sleep 300"]\nprofiles = ["oneshot"]\n\n[timeouts]\nstartup = "300s"\n',
  );
  const env = { ...process.env, AGY_HARNESS_SANDBOX_DIR: dir };
  const node = spawn(process.execPath, [launcher, "run", "--adapter", "adapter.toml"], { cwd: dir, env, stdio: "ignore" });
  const children = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const alive = (pid) => {
    try {
      return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
    } catch {
      return false;
    }
  };
  const until = async (ready) => {
    const deadline = Date.now() + 60_000;
    while (!ready() && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20)); // bounded polling of /proc
    }
  };
  let harness;
  try {
    await until(() => children(node.pid).length > 0);
    [harness] = children(node.pid);
    assert.ok(harness, "the launcher started agy-harness");
    // agy-harness is running the scenario: its driver (under the reaper) has started.
    await until(() => children(harness).length > 0);
    assert.ok(children(harness).length > 0, "agy-harness started the driver");
    node.kill("SIGKILL");
    await until(() => !alive(harness));
    assert.equal(alive(harness), false, `agy-harness ${harness} outlived its launcher`);
  } finally {
    if (harness && alive(harness)) process.kill(harness, "SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
});
