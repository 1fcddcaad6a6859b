// Where the kit's native binaries are: in the platform package npm installed beside
// this one (an optional dependency, chosen by its `os` and `cpu` fields).
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The four programs the platform packages carry. */
export const BINARIES = ["agy-harness", "fake-agy", "fake-agy-acp", "agy-reference-adapter"];

/** The platform packages, by `${process.platform}-${process.arch}`. */
const PLATFORM_PACKAGES = { "linux-x64": "@agy-conformance/linux-x64" };

/**
 * The absolute path of one of BINARIES: `$AGY_CONFORMANCE_BIN_DIR/NAME` when that
 * variable is set (a kit built from source), else the platform package's `bin/NAME`.
 */
export function binaryPath(name) {
  if (!BINARIES.includes(name)) {
    throw new Error(`unknown binary \`${name}\`; expected one of ${BINARIES.join(", ")}`);
  }
  const override = process.env.AGY_CONFORMANCE_BIN_DIR;
  if (override) {
    const path = join(override, name);
    if (!existsSync(path)) throw new Error(`failed to find \`${name}\` in $AGY_CONFORMANCE_BIN_DIR \`${override}\``);
    return path;
  }
  const platform = `${process.platform}-${process.arch}`;
  const pkg = PLATFORM_PACKAGES[platform];
  if (!pkg) {
    throw new Error(
      `agy-conformance has no binaries for ${platform} (only ${Object.keys(PLATFORM_PACKAGES).join(", ")}); ` +
        "build them from source and set AGY_CONFORMANCE_BIN_DIR",
    );
  }
  let dir;
  try {
    dir = dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `failed to find \`${pkg}\`, the package with agy-conformance's binaries for ${platform}\n` +
        "help: it is an optional dependency; reinstall without --no-optional / --omit=optional",
    );
  }
  return join(dir, "bin", name);
}
