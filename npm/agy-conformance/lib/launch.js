// The `bin` entries: run the native binary with the same arguments and stdio, pass
// on the signals a terminal or CI runner sends, and exit as it exited. Node cannot ask
// the kernel to signal a child at its own death (PR_SET_PDEATHSIG), so agy-harness is
// told this launcher's pid (AGY_HARNESS_LAUNCHER_PID) and asks for it itself: a
// launcher killed with SIGKILL takes agy-harness with it.
import { spawn } from "node:child_process";
import { binaryPath } from "./binaries.js";

export function run(name) {
  let path;
  try {
    path = binaryPath(name);
  } catch (e) {
    console.error(`agy-conformance: ${e.message}`);
    process.exit(3);
  }
  const env = { ...process.env, AGY_HARNESS_LAUNCHER_PID: String(process.pid) };
  const child = spawn(path, process.argv.slice(2), { stdio: "inherit", env });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (e) => {
    console.error(`agy-conformance: failed to run \`${path}\`: ${e.message}`);
    process.exit(3);
  });
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else {
      process.exit(code ?? 1);
    }
  });
}
