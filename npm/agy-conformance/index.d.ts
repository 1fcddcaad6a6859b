/** The four programs the platform packages carry. */
export declare const BINARIES: readonly ["agy-harness", "fake-agy", "fake-agy-acp", "agy-reference-adapter"];

/** The absolute path of a kit binary ($AGY_CONFORMANCE_BIN_DIR, else the platform package). */
export declare function binaryPath(name: (typeof BINARIES)[number]): string;

/** A fake-agy script: TOML text, a file URL, or an object rendered to TOML. */
export type Script = string | URL | Record<string, unknown>;

export interface FakeAgyOptions {
  script?: Script;
  /** The agy version fake-agy models (FAKE_AGY_VERSION). */
  version?: string;
  /**
   * A calibration file (docs/calibration-format.md) fake-agy presents as agy, over
   * `version` (FAKE_AGY_CALIBRATION): a path from the current folder or a file URL.
   */
  calibration?: string | URL;
  /** Play an agy without credentials (FAKE_AGY_SIGNED_OUT). */
  signedOut?: boolean;
  /** Play an account whose quota is used up (FAKE_AGY_QUOTA_EXHAUSTED). */
  quotaExhausted?: boolean;
  /** Multiply every scripted delay (FAKE_AGY_TIME_SCALE). */
  timeScale?: number;
  /** The sandbox folder (default: a new temporary folder). */
  dir?: string;
}

/** One agy process as fake-agy journalled it. */
export interface Invocation {
  record: Record<string, unknown>;
  argv: string[];
  args: string[];
  pid: number;
  complete: boolean;
  prompt: string | null;
  stdinLines: string[];
  stdinClosed: boolean;
  signals: string[];
  exitCode: number | null;
  exitSignal: string | null;
  files: string[];
  flagValue(flag: string): string | null;
  hasArg(token: string): boolean;
}

export interface FakeAgy {
  root: string;
  agy: string;
  /** `bin/agy_acp_server`: fake-agy-acp, first on `env.PATH`. */
  acpServer: string;
  home: string;
  workDir: string;
  brainDir: string;
  journalPath: string;
  env: Record<string, string | undefined>;
  journal(): Invocation[];
  close(): void;
}

/** The variables that carry agy's credentials or profile; `FakeAgy.env` drops them. */
export declare const AGY_USER_VARS: readonly string[];
export declare function fakeAgy(options?: FakeAgyOptions): FakeAgy;
export declare function readJournal(path: string): Invocation[];
export declare function renderScript(script: Record<string, unknown>): string;
