// A small print-mode client of agy: one `agy -p … --output-format json` per question.
// The code under test in this example; it knows nothing about agy-conformance.
import { execFile } from "node:child_process";

export class AgyError extends Error {}

/** agy's answer to `prompt`; `env` is the environment agy runs in. */
export function ask(prompt, { model, agy = "agy", env = process.env } = {}) {
  const argv = ["-p", prompt, "--output-format", "json", ...(model ? ["--model", model] : [])];
  return new Promise((resolve, reject) => {
    execFile(agy, argv, { env }, (error, stdout, stderr) => {
      const code = error ? (error.code ?? 1) : 0;
      let envelope;
      try {
        envelope = JSON.parse(stdout.trim().split("\n").at(-1));
      } catch {
        return reject(new AgyError(`agy exit ${code}: stdout is not a JSON envelope: ${stderr.trim()}`));
      }
      if (code !== 0 || envelope.status !== "SUCCESS") {
        return reject(new AgyError(`agy exit ${code}, status ${envelope.status}: ${envelope.error ?? stderr.trim()}`));
      }
      resolve(envelope.response ?? "");
    });
  });
}
