// A fake-agy script as TOML text (docs/script-format.md): text as given, a file URL
// read, an object rendered with every table and array inline.
import { readFileSync } from "node:fs";

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** The TOML text of `script`. */
export function scriptText(script) {
  if (typeof script === "string") return script;
  if (script instanceof URL) return readFileSync(script, "utf8");
  if (script && typeof script === "object" && !Array.isArray(script)) return renderScript(script);
  throw new TypeError("a script is TOML text, a file URL or an object");
}

/** `script` as TOML: one `key = value` line per top-level key. */
export function renderScript(script) {
  return Object.entries(script)
    .map(([k, v]) => `${key(k)} = ${value(v)}\n`)
    .join("");
}

const key = (k) => (BARE_KEY.test(k) ? k : string(k));
// JSON's escapes are TOML's, except that TOML also forbids a raw DEL.
const string = (s) => JSON.stringify(s).replaceAll("\x7f", "\\u007f");

function value(v) {
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") {
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    return String(v);
  }
  if (typeof v === "string") return string(v);
  if (Array.isArray(v)) return `[${v.map(value).join(", ")}]`;
  if (v && typeof v === "object") {
    return `{ ${Object.entries(v).map(([k, x]) => `${key(k)} = ${value(x)}`).join(", ")} }`;
  }
  throw new TypeError(`a script value is a string, number, boolean, array or object, not ${v}`);
}
