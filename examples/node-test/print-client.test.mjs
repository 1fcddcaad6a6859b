// The print-mode client's own tests, with agy-conformance's fakeAgy (node --test).
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { fakeAgy } from "agy-conformance";
import { AgyError, ask } from "./print-client.mjs";

let agy;
afterEach(() => agy?.close());

test("the answer is read from the envelope", async () => {
  agy = fakeAgy({
    script: `
[[invocation]]
when  = { prompt_contains = "hexagon" }
steps = [{ default = { response = "a purple hexagon" } }]
`,
  });
  assert.equal(await ask("draw a hexagon", { model: "gemini-3.8-flash-low", env: agy.env }), "a purple hexagon");
  const [call, ...rest] = agy.journal();
  assert.equal(rest.length, 0);
  assert.equal(call.prompt, "draw a hexagon");
  assert.equal(call.flagValue("--model"), "gemini-3.8-flash-low");
  assert.ok(call.hasArg("--output-format json"));
});

test("a failed run is an error even with a success envelope", async () => {
  agy = fakeAgy({ script: { invocation: [{ steps: [{ envelope: { status: "SUCCESS", response: "fine" } }, { exit: 1 }] }] } });
  await assert.rejects(ask("anything", { env: agy.env }), AgyError);
  assert.equal(agy.journal()[0].exitCode, 1);
});

test("a signed-out agy is an error", async () => {
  agy = fakeAgy({ signedOut: true, version: "1.3.2" });
  await assert.rejects(ask("hello", { env: agy.env }), AgyError);
});

test("each question is one agy process", async () => {
  agy = fakeAgy();
  await ask("one", { env: agy.env });
  await ask("two", { env: agy.env });
  const calls = agy.journal();
  assert.deepEqual(calls.map((c) => c.prompt), ["one", "two"]);
  assert.equal(new Set(calls.map((c) => c.pid)).size, 2);
});
