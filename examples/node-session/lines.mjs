// @ts-check
// Bounded line reading: a line longer than the cap is reported and skipped, never held
// whole, so a runaway writer cannot exhaust memory.

/** The longest line kept, in bytes (1 MiB; agy's stream-json lines are far shorter). */
export const LINE_CAP = 1 << 20;

/**
 * Calls `onLine` with each `\n`-terminated line of `stream` (UTF-8, without its `\n`),
 * `onOverlong` with the length of each line past `cap`, then `onEnd` once.
 * @param {NodeJS.ReadableStream} stream
 * @param {{onLine: (line: string) => void, onOverlong?: (bytes: number) => void, onEnd?: () => void}} sink
 * @param {number} [cap]
 */
export function readLines(stream, sink, cap = LINE_CAP) {
  /** @type {Buffer[]} */
  let parts = [];
  let held = 0;
  let dropped = 0;
  stream.on("data", (/** @type {Buffer} */ chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (dropped > 0 || held + piece.length > cap) {
        sink.onOverlong?.(dropped + held + piece.length);
      } else {
        sink.onLine(Buffer.concat([...parts, piece]).toString("utf8"));
      }
      parts = [];
      held = 0;
      dropped = 0;
      start = nl + 1;
    }
    const rest = chunk.subarray(start);
    if (dropped > 0 || held + rest.length > cap) {
      dropped += held + rest.length;
      parts = [];
      held = 0;
    } else if (rest.length > 0) {
      parts.push(Buffer.from(rest));
      held += rest.length;
    }
  });
  stream.on("end", () => {
    if (held > 0) sink.onLine(Buffer.concat(parts).toString("utf8"));
    if (dropped > 0) sink.onOverlong?.(dropped);
    sink.onEnd?.();
  });
}
