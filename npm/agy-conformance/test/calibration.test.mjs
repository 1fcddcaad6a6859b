// fakeAgy({ calibration }): fake-agy presents the calibration file as agy
// (FAKE_AGY_CALIBRATION); scripts/test-packages runs this against the installed package.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import { binaryPath, fakeAgy } from "agy-conformance";

const ULTRA = "gemini-9-ultra-high\tGemini 9 Ultra (High)";
let dir;
let calibration;

// A calibration learned, as a user would, from one recorded `agy models` that lists a
// model no built-in calibration has.
before(() => {
  dir = mkdtempSync(join(tmpdir(), "agy-calibration-"));
  const records = join(dir, "records");
  mkdirSync(records);
  const lines = [
    { trace: 1, agy_version: "1.3.2", recorded: "2026-12-01", platform: "linux", source: "a test" },
    { invocation: { argv: ["agy", "models"] } },
    { t: 0.0, stdout: `${ULTRA}\n` },
    { t: 0.0, exit: { code: 0 } },
  ];
  writeFileSync(join(records, "models.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  calibration = join(dir, "ultra.toml");
  execFileSync(binaryPath("agy-harness"), ["learn", "--traces", records, "--out", calibration]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function models(options) {
  const agy = fakeAgy(options);
  try {
    return execFileSync("agy", ["models"], { env: agy.env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .trim()
      .split("\n");
  } finally {
    agy.close();
  }
}

test("without a calibration the built-in catalogue is listed", () => {
  assert.ok(!models({}).includes(ULTRA));
});

test("a calibration path or file URL is what fake-agy presents as agy", () => {
  assert.deepEqual(models({ calibration }), [ULTRA]);
  assert.deepEqual(models({ calibration: pathToFileURL(calibration) }), [ULTRA]);
});

test("a calibration that names no file throws at once", () => {
  assert.throws(() => fakeAgy({ calibration: join(dir, "nowhere.toml") }), /nowhere\.toml/);
});
