//! What `traces/corpus.toml` says about each capture.

use super::first_sight::FirstSight;
use super::known::Known;
use crate::version::AgyVersion;
use serde::{Deserialize, Serialize};

/// The whole corpus table, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Corpus {
    /// Every `[[capture]]`.
    pub captures: Vec<Capture>,
}

/// One `[[capture]]`: a published run of agy and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// Unique kebab-case id, e.g. `pb-1.2.17-success-pong`.
    pub id: String,
    /// The agy version that printed it.
    pub agy_version: Known<AgyVersion>,
    /// How the version is known.
    pub version_from: String,
    /// What kind of run it is.
    pub kind: CaptureKind,
    /// The command line, `agy` first.
    pub argv: Known<Vec<String>>,
    /// The lines written to stdin (none for an empty list).
    pub stdin: Known<Vec<String>>,
    /// The exit code.
    pub exit: Known<i32>,
    /// Capture date, `YYYY-MM-DD`.
    pub captured: Known<String>,
    /// How much the output is worth as a record of agy.
    pub confidence: Confidence,
    /// `linux_amd64`, …, or `unknown`.
    pub platform: String,
    /// Where it was published.
    pub source: CaptureSource,
    /// The files holding the output, relative to the corpus folder.
    pub files: CaptureFiles,
    /// Per role of `files`, the SHA-256 (hex) of the file's bytes as stored: the
    /// publisher's bytes at the cited source.
    pub sha256: std::collections::BTreeMap<String, String>,
    /// The declared load-time normalisations of the stored bytes, in order
    /// ([`super::TRANSFORMS`]).
    pub transforms: Vec<String>,
    /// One sentence: what the capture shows.
    pub shows: String,
    /// What was redacted (`none`).
    pub redacted: String,
    /// Anything else worth knowing.
    pub note: Option<String>,
    /// What the run's host had that agy's output does not show (its `settings.json`,
    /// no sign-in), with the evidence; a fidelity run gives fake-agy the same.
    pub host: Option<CaptureHost>,
    /// Values the publisher trimmed (`init.tools`): a fidelity run compares only what the
    /// capture still lists.
    pub elided: Vec<String>,
    /// The verdict when the capture entered the corpus, before fake-agy changed for it.
    pub first_sight: Option<FirstSight>,
}

/// The host a capture ran on, as far as the record shows it (corpus.toml `host`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureHost {
    /// The `settings.json` agy read (its data directory), as a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Map<String, serde_json::Value>>,
    /// agy had no credentials.
    #[serde(default)]
    pub signed_out: bool,
    /// The account's quota was used up before the run.
    #[serde(default)]
    pub quota_exhausted: bool,
    /// The run continues a conversation that already had turns (`--conversation`,
    /// `--continue`).
    #[serde(default)]
    pub resumes: bool,
    /// How long the model took over its answer, in seconds, when the record shows it
    /// outlasted the run's `--print-timeout` (the model's pace, not agy's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_seconds: Option<u64>,
    /// The signal the run's agy got while a tool step was ACTIVE, as the record says;
    /// a fidelity run sends it at the same point.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<HostSignal>,
    /// The model's decisions per turn (the script's `[[model]]` tables) when the kept
    /// lines do not show them but the record says what the model did (a command it ran,
    /// a file it wrote); a fidelity run gives these instead of the ones read from stdout.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub model: Vec<crate::script::ModelTurn>,
    /// Where the record says so.
    pub from: String,
}

/// A signal a capture's run got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HostSignal {
    /// SIGINT.
    #[serde(rename = "INT")]
    Int,
    /// SIGTERM.
    #[serde(rename = "TERM")]
    Term,
}

/// The kind of run a capture records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaptureKind {
    /// `-p … --output-format json`.
    PrintJson,
    /// `-p …` with text output.
    PrintText,
    /// `--output-format stream-json` (print or persistent).
    StreamJson,
    /// `--input-format stream-json`, a persistent session.
    Persistent,
    /// Only stderr was published.
    StderrOnly,
    /// `agy models`.
    Models,
    /// `/usage`.
    Usage,
    /// `/quota`.
    Quota,
    /// `--version`.
    Version,
    /// An `agy_acp_server` transcript.
    Acp,
}

impl CaptureKind {
    /// The spelling in corpus.toml.
    pub fn as_str(&self) -> &'static str {
        match self {
            CaptureKind::PrintJson => "print-json",
            CaptureKind::PrintText => "print-text",
            CaptureKind::StreamJson => "stream-json",
            CaptureKind::Persistent => "persistent",
            CaptureKind::StderrOnly => "stderr-only",
            CaptureKind::Models => "models",
            CaptureKind::Usage => "usage",
            CaptureKind::Quota => "quota",
            CaptureKind::Version => "version",
            CaptureKind::Acp => "acp",
        }
    }
}

/// How far the output is agy's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Confidence {
    /// Clearly captured from a real agy, unedited.
    Live,
    /// Trimmed or hand-edited after capture.
    Edited,
    /// Rebuilt from a description.
    Reconstructed,
}

impl Confidence {
    /// The spelling in corpus.toml.
    pub fn as_str(&self) -> &'static str {
        match self {
            Confidence::Live => "live",
            Confidence::Edited => "edited",
            Confidence::Reconstructed => "reconstructed",
        }
    }
}

/// Where a capture was published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CaptureSource {
    /// A file in a public repository at a commit.
    Repo {
        /// `owner/name`.
        repo: String,
        /// Path inside the repository.
        path: String,
        /// 40 hex digits.
        commit: String,
    },
    /// A web page.
    Url {
        /// The address.
        url: String,
    },
}

impl CaptureSource {
    /// One line for a trace header: `owner/name path @ commit`, or the URL.
    pub fn describe(&self) -> String {
        match self {
            CaptureSource::Repo { repo, path, commit } => format!("{repo} {path} @ {commit}"),
            CaptureSource::Url { url } => url.clone(),
        }
    }
}

/// The files of a capture, relative to the corpus folder.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureFiles {
    /// What agy wrote to stdout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// What agy wrote to stderr.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// An ACP transcript.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript: Option<String>,
    /// The file `--log-file` named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
}

impl CaptureFiles {
    /// Every file, with its role (`stdout`, `stderr`, `transcript`, `log`).
    pub fn all(&self) -> Vec<(&'static str, &str)> {
        [
            ("stdout", &self.stdout),
            ("stderr", &self.stderr),
            ("transcript", &self.transcript),
            ("log", &self.log),
        ]
        .into_iter()
        .filter_map(|(role, f)| f.as_deref().map(|f| (role, f)))
        .collect()
    }
}

impl Capture {
    /// The agy version, when known.
    pub fn version(&self) -> Option<AgyVersion> {
        self.agy_version.get().copied()
    }

    /// The argv, when known.
    pub fn argv(&self) -> Option<&[String]> {
        self.argv.get().map(|v| v.as_slice())
    }

    /// The stdin lines; none when unknown.
    pub fn stdin_lines(&self) -> &[String] {
        self.stdin.get().map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// The lines a replay of this capture sends: the recorded ones; for a persistent
    /// run whose stdin was not published, one user line standing for the client's,
    /// since persistent agy runs a turn only once a line came (an idle start runs none)
    /// and the capture shows what followed it.
    pub fn replay_lines(&self) -> Vec<String> {
        let persistent = self.argv().is_some_and(|argv| {
            crate::command_line::parse_args(argv.get(1..).unwrap_or_default())
                .is_ok_and(|a| a.run_mode() == crate::script::RunMode::Persistent)
        });
        if persistent && self.stdin == Known::Unknown {
            return vec![UNPUBLISHED_LINE.to_string()];
        }
        self.stdin_lines().to_vec()
    }
}

/// The user line a replay sends for a persistent capture whose stdin was not published.
pub const UNPUBLISHED_LINE: &str = r#"{"event":"user","message":{"role":"user","content":[{"type":"text","text":"(not published)"}]}}"#;

impl Corpus {
    /// The capture with this id.
    pub fn find(&self, id: &str) -> Option<&Capture> {
        self.captures.iter().find(|c| c.id == id)
    }
}
