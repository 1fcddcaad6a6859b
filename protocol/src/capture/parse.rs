//! Reading `traces/corpus.toml` with every problem located.

use super::digest::sha256_hex;
use super::files::{check_capture_file, read_capture_file};
use super::first_sight::FirstSight;
use super::known::Known;
use super::model::{
    Capture, CaptureFiles, CaptureHost, CaptureKind, CaptureSource, Confidence, Corpus,
};
use super::transform::{is_transform, TRANSFORMS};
use crate::diag::{parse_whole_document, Diagnostic, Diagnostics, SourceFile, TableWalker};
use crate::version::AgyVersion;
use std::collections::BTreeMap;
use std::path::Path;
use toml::de::DeValue;
use toml::Spanned;

const ROOT_KEYS: &[&str] = &["capture"];
const CAPTURE_KEYS: &[&str] = &[
    "id",
    "agy_version",
    "version_from",
    "kind",
    "argv",
    "stdin",
    "exit",
    "captured",
    "confidence",
    "platform",
    "source",
    "files",
    "sha256",
    "transforms",
    "shows",
    "redacted",
    "note",
    "host",
    "elided",
    "sha256",
    "first_sight",
];

/// The values `elided` may name: a trimmed `init.tools` list; `stdout` when the
/// publisher kept only some of the run's lines (in order); `stderr` when it kept only
/// the start of stderr (cut at a length).
pub const ELIDABLE: &[&str] = &["init.tools", "stdout", "stderr"];

/// Parses a corpus table (the whole document). File existence is checked by
/// [`super::load_corpus`], which knows the folder.
pub fn parse_corpus(src: &SourceFile) -> Result<Corpus, Diagnostics> {
    parse_corpus_in(src, None)
}

/// Parses a corpus table; with `base`, also checks that every file it names is a
/// readable, bounded file under `base`.
pub(super) fn parse_corpus_in(
    src: &SourceFile,
    base: Option<&Path>,
) -> Result<Corpus, Diagnostics> {
    parse_whole_document(src, "the corpus", &|src, value, what, diags| {
        parse_corpus_value(src, value, what, base, diags)
    })
}

fn parse_corpus_value(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    what: &str,
    base: Option<&Path>,
    diags: &mut Diagnostics,
) -> Corpus {
    let Some(mut root) = TableWalker::from_value(src, value, what, diags) else {
        return Corpus::default();
    };
    let values = root.elements("capture", diags);
    root.finish(ROOT_KEYS, diags);
    let mut first_at: BTreeMap<String, usize> = BTreeMap::new();
    let mut captures = Vec::new();
    for (i, v) in values.into_iter().enumerate() {
        let Some(c) = parse_capture(src, v, i + 1, base, diags) else {
            continue;
        };
        if let Some(line) = first_at.get(&c.id) {
            diags.push(
                Diagnostic::at(
                    src,
                    v.span().start,
                    format!("capture id `{}` is used twice", c.id),
                )
                .with_hint(format!("ids are unique; the first use is on line {line}")),
            );
        } else {
            first_at.insert(c.id.clone(), src.location(v.span().start).0);
        }
        captures.push(c);
    }
    if captures.is_empty() && diags.is_empty() {
        diags.push(
            Diagnostic::at(src, 0, "the corpus lists no capture")
                .with_hint("add a `[[capture]]` table per published run"),
        );
    }
    Corpus { captures }
}

fn parse_capture(
    src: &SourceFile,
    value: &Spanned<DeValue<'_>>,
    n: usize,
    base: Option<&Path>,
    diags: &mut Diagnostics,
) -> Option<Capture> {
    let what = format!("capture {n}");
    let mut w = TableWalker::from_value(src, value, what, diags)?;
    let before = diags.len();
    let id = parse_id(src, &mut w, diags);
    let agy_version: Option<Known<AgyVersion>> = w.required(
        "agy_version",
        "write `agy_version = \"1.3.1\"` or `\"unknown\"`",
        diags,
    );
    let version_from = required_text(
        src,
        &mut w,
        "version_from",
        "say how the version is known, e.g. `upstream README names agy 1.3.1`",
        diags,
    );
    let kind: Option<CaptureKind> = w.required("kind", "one of print-json, print-text, stream-json, persistent, stderr-only, models, usage, quota, version, acp", diags);
    let argv = parse_argv(src, &mut w, diags);
    let stdin = w.required(
        "stdin",
        "write `stdin = []` when nothing was written, or `\"unknown\"`",
        diags,
    );
    let exit = w.required("exit", "write the exit code or `\"unknown\"`", diags);
    let provenance = parse_provenance(src, &mut w, diags);
    let files: Option<CaptureFiles> = w.required(
        "files",
        "write `files = { stdout = \"upstream/…\" }`",
        diags,
    );
    let sha256: Option<BTreeMap<String, String>> = w.required(
        "sha256",
        "write `sha256 = { stdout = \"<64 hex digits>\" }`, one per file (`sha256sum FILE`)",
        diags,
    );
    if let (Some(f), Some(h)) = (&files, &sha256) {
        check_files(src, &mut w, f, h, base, diags);
    }
    let transforms = parse_transforms(src, &mut w, diags);
    let (shows, redacted) = parse_shows_redacted(src, &mut w, diags);
    let (note, host, elided) = parse_notes(src, &mut w, diags);
    let first_sight = parse_first_sight(src, &mut w, diags);
    w.finish(CAPTURE_KEYS, diags);
    if diags.len() > before {
        return None;
    }
    Some(Capture {
        id: id?,
        agy_version: agy_version?,
        version_from: version_from?,
        kind: kind?,
        argv: argv?,
        stdin: stdin?,
        exit: exit?,
        captured: provenance.captured?,
        confidence: provenance.confidence?,
        platform: provenance.platform?,
        source: provenance.source?,
        files: files?,
        sha256: sha256?,
        transforms,
        shows: shows?,
        redacted: redacted?,
        note,
        host,
        elided,
        first_sight,
    })
}

/// A capture's declared load-time `transforms`, each checked to be a known one.
fn parse_transforms(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Vec<String> {
    let transforms: Vec<String> = w.get("transforms", diags).unwrap_or_default();
    if let Some(bad) = transforms.iter().find(|t| !is_transform(t)) {
        let known: Vec<&str> = TRANSFORMS.iter().map(|(n, _)| *n).collect();
        let offset = w.raw("transforms").map(|v| v.span().start).unwrap_or(0);
        diags.push(
            Diagnostic::at(
                src,
                offset,
                format!("unknown transform `{bad}` in {}", w.what()),
            )
            .with_hint(format!("known transforms: {}", known.join(", "))),
        );
    }
    transforms
}

/// A capture's `first_sight` verdict, when it has one, checked to be complete.
fn parse_first_sight(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Option<FirstSight> {
    let first_sight: Option<FirstSight> = w.get("first_sight", diags);
    if let Some(sight) = &first_sight {
        let problem = sight.problem().or_else(|| {
            (!is_date(&sight.scored)).then_some("`scored` is the date of the run, `YYYY-MM-DD`")
        });
        if let Some(problem) = problem {
            check_with(src, w, "first_sight", false, problem, diags);
        }
    }
    first_sight
}

/// A capture's `shows` and `redacted` texts.
fn parse_shows_redacted(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> (Option<String>, Option<String>) {
    let shows = required_text(
        src,
        w,
        "shows",
        "say in one sentence what the capture shows",
        diags,
    );
    let redacted = required_text(
        src,
        w,
        "redacted",
        "write `redacted = \"none\"` or what was replaced",
        diags,
    );
    (shows, redacted)
}

/// A capture's `id`, checked to be kebab-case.
fn parse_id(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Option<String> {
    let id: Option<String> = w.required(
        "id",
        "give a kebab-case id such as `pb-1.2.17-success-pong`",
        diags,
    );
    if let Some(id) = &id {
        check_with(src, w, "id", is_kebab_id(id), "ids are lowercase letters, digits and dots joined by `-`, e.g. `pb-1.2.17-success-pong`", diags);
    }
    id
}

/// A capture's `argv`: the command line as published, starting with the program name,
/// or `"unknown"`.
fn parse_argv(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Option<Known<Vec<String>>> {
    let argv: Option<Known<Vec<String>>> = w.required(
        "argv",
        "write `argv = [\"agy\", …]` or `\"unknown\"`",
        diags,
    );
    if let Some(Known::Known(a)) = &argv {
        check_with(
            src,
            w,
            "argv",
            !a.is_empty(),
            "argv starts with the program name; write `\"unknown\"` when it was not published",
            diags,
        );
    }
    argv
}

/// When and where a capture was made, and how far it is trusted.
struct Provenance {
    captured: Option<Known<String>>,
    confidence: Option<Confidence>,
    platform: Option<String>,
    source: Option<CaptureSource>,
}

fn parse_provenance(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> Provenance {
    let captured: Option<Known<String>> = w.required(
        "captured",
        "write `captured = \"2026-10-07\"` or `\"unknown\"`",
        diags,
    );
    if let Some(Known::Known(d)) = &captured {
        check_with(
            src,
            w,
            "captured",
            is_date(d),
            "write the date as `YYYY-MM-DD`",
            diags,
        );
    }
    let confidence: Option<Confidence> =
        w.required("confidence", "one of live, edited, reconstructed", diags);
    let platform = required_text(
        src,
        w,
        "platform",
        "write `linux_amd64`, … or `unknown`",
        diags,
    );
    let source: Option<CaptureSource> = w.required("source", "write `{ repo = \"owner/name\", path = \"…\", commit = \"<40 hex>\" }` or `{ url = \"…\" }`", diags);
    if let Some(s) = &source {
        check_source(src, w, s, diags);
    }
    Provenance {
        captured,
        confidence,
        platform,
        source,
    }
}

/// A capture names at least one file with its hash, and each exists under `base` within
/// its size and with that hash.
fn check_files(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    f: &CaptureFiles,
    sha256: &BTreeMap<String, String>,
    base: Option<&Path>,
    diags: &mut Diagnostics,
) {
    let roles: Vec<&str> = f.all().iter().map(|(role, _)| *role).collect();
    let hashed: Vec<&str> = sha256.keys().map(String::as_str).collect();
    let mut sorted = roles.clone();
    sorted.sort_unstable();
    let well_formed = sha256
        .values()
        .all(|h| h.len() == 64 && h.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')));
    check_with(
        src,
        w,
        "sha256",
        sorted == hashed && well_formed,
        "`sha256` has the keys of `files`, each 64 lowercase hex digits (`sha256sum FILE`)",
        diags,
    );
    check_with(
        src,
        w,
        "files",
        !f.all().is_empty(),
        "name at least one of stdout, stderr, transcript, log",
        diags,
    );
    let Some(base) = base else { return };
    for (role, rel) in f.all() {
        let problem = check_capture_file(base, rel).and_then(|()| {
            let bytes = read_capture_file(base, rel)?;
            let found = sha256_hex(&bytes);
            match sha256.get(role) {
                Some(h) if *h != found => Err(format!(
                    "has SHA-256 {found}, not the {h} recorded: the stored bytes changed"
                )),
                _ => Ok(()),
            }
        });
        if let Err(problem) = problem {
            let offset = w
                .raw("files")
                .map(|v| v.span().start)
                .unwrap_or(w.span_start());
            diags.push(
                Diagnostic::at(src, offset, format!("{role} file `{rel}` of {}: {problem}", w.what()))
                    .with_hint(if problem.contains("SHA-256") {
                        "store the publisher's bytes as published; declare a normalisation in `transforms`"
                    } else {
                        "paths are relative to the corpus folder, e.g. `upstream/owner__repo__name.stdout`"
                    }),
            );
        }
    }
}

/// The optional notes on a capture: a free note, its host (what the run's machine
/// had) and the values its publisher elided.
fn parse_notes(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    diags: &mut Diagnostics,
) -> (Option<String>, Option<CaptureHost>, Vec<String>) {
    let note = w.get("note", diags);
    let host: Option<CaptureHost> = w.get("host", diags);
    if let Some(h) = &host {
        check_with(
            src,
            w,
            "host",
            !h.from.trim().is_empty(),
            "say where the record shows the host: `host = { settings = { toolPermission = \"strict\" }, from = \"…\" }`",
            diags,
        );
    }
    let elided: Vec<String> = w.get("elided", diags).unwrap_or_default();
    check_with(
        src,
        w,
        "elided",
        elided.iter().all(|e| ELIDABLE.contains(&e.as_str())),
        "`elided` lists what the publisher trimmed; known: `init.tools`, `stdout` (some lines kept), `stderr` (its start kept)",
        diags,
    );
    (note, host, elided)
}

fn required_text(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    key: &str,
    hint: &str,
    diags: &mut Diagnostics,
) -> Option<String> {
    let text: String = w.required(key, hint, diags)?;
    if text.trim().is_empty() {
        let offset = w.raw(key).map(|v| v.span().start).unwrap_or(0);
        diags.push(
            Diagnostic::at(src, offset, format!("`{key}` of {} is empty", w.what()))
                .with_hint(hint.to_string()),
        );
        return None;
    }
    Some(text)
}

fn check_with(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    key: &str,
    ok: bool,
    hint: &str,
    diags: &mut Diagnostics,
) {
    if ok {
        return;
    }
    let offset = w.raw(key).map(|v| v.span().start).unwrap_or(w.span_start());
    diags.push(
        Diagnostic::at(src, offset, format!("invalid `{key}` in {}", w.what()))
            .with_hint(hint.to_string()),
    );
}

fn check_source(
    src: &SourceFile,
    w: &mut TableWalker<'_, '_>,
    source: &CaptureSource,
    diags: &mut Diagnostics,
) {
    let (ok, hint) = match source {
        CaptureSource::Repo { repo, path, commit } => (
            repo.split('/').filter(|p| !p.is_empty()).count() == 2
                && !path.is_empty()
                && commit.len() == 40
                && commit.chars().all(|c| c.is_ascii_hexdigit()),
            "`repo` is `owner/name`, `path` a file in it, `commit` 40 hex digits",
        ),
        CaptureSource::Url { url } => (
            url.starts_with("https://") || url.starts_with("http://"),
            "`url` is an http(s) address",
        ),
    };
    check_with(src, w, "source", ok, hint, diags);
}

/// `pb-1.2.17-success-pong`: lowercase letters, digits and dots, joined by single `-`.
fn is_kebab_id(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '.')
        })
}

fn is_date(d: &str) -> bool {
    let b = d.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GOOD: &str = r#"
[[capture]]
id           = "pb-1.3.1-success-pong"
agy_version  = "1.3.1"
version_from = "upstream README names agy 1.3.1"
kind         = "stream-json"
argv         = ["agy", "-p", "reply PONG", "--output-format", "json"]
stdin        = []
exit         = 0
captured     = "2026-10-07"
confidence   = "live"
platform     = "linux_amd64"
source       = { repo = "owner/name", path = "a/b.stdout", commit = "2a7bb078ee6c76512030f351d1f2251562bbd32c" }
files        = { stdout = "upstream/x.stdout" }
sha256       = { stdout = "0000000000000000000000000000000000000000000000000000000000000000" }
shows        = "a one-word answer"
redacted     = "none"
"#;

    fn parse(text: &str) -> Result<Corpus, Diagnostics> {
        parse_corpus(&SourceFile::new("corpus.toml", text))
    }

    #[test]
    fn a_complete_capture_parses() {
        let corpus = parse(GOOD).expect("parses");
        let c = &corpus.captures[0];
        assert_eq!(c.id, "pb-1.3.1-success-pong");
        assert_eq!(c.version(), Some(AgyVersion::new(1, 3, 1)));
        assert_eq!(c.kind, CaptureKind::StreamJson);
        assert_eq!(c.exit, Known::Known(0));
        assert_eq!(c.files.all(), vec![("stdout", "upstream/x.stdout")]);
    }

    #[test]
    fn unknown_values_are_accepted_where_the_schema_allows_them() {
        let text = GOOD
            .replace("exit         = 0", "exit = \"unknown\"")
            .replace("agy_version  = \"1.3.1\"", "agy_version = \"unknown\"")
            .replace("stdin        = []", "stdin = \"unknown\"");
        let c = &parse(&text).expect("parses").captures[0];
        assert_eq!((c.exit.clone(), c.version()), (Known::Unknown, None));
        assert_eq!(c.stdin, Known::Unknown);
    }

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let text = GOOD
            .replace("kind         = \"stream-json\"", "kind = \"stream\"")
            .replace("captured     = \"2026-10-07\"", "captured = \"7 Oct\"")
            .replace("redacted     = \"none\"\n", "redactd = \"none\"\n");
        let err = parse(&text).expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        // kind (6), captured (10), missing redacted (at the table, 2), unknown key (17).
        assert!(lines == vec![2, 6, 10, 17], "{err}");
        assert!(
            err.iter().any(|d| d.message.contains("missing `redacted`")),
            "{err}"
        );
        assert!(
            err.iter().any(|d| d
                .hint
                .as_deref()
                .unwrap_or("")
                .contains("did you mean `redacted`")),
            "{err}"
        );
    }

    #[test]
    fn the_host_and_trimmed_values_are_read_and_checked() {
        let text = format!(
            "{GOOD}host = {{ settings = {{ toolPermission = \"strict\" }}, signed_out = true, resumes = true, model_seconds = 60, from = \"the page\" }}\nelided = [\"init.tools\"]\n"
        );
        let c = &parse(&text).expect("parses").captures[0];
        let host = c.host.as_ref().expect("host");
        assert!(host.signed_out && host.resumes);
        assert_eq!(host.model_seconds, Some(60));
        assert_eq!(
            host.settings.as_ref().and_then(|s| s.get("toolPermission")),
            Some(&serde_json::json!("strict"))
        );
        assert_eq!(c.elided, vec!["init.tools".to_string()]);
        let bad =
            format!("{GOOD}host = {{ signed_out = true, from = \" \" }}\nelided = [\"usage\"]\n");
        let err = parse(&bad).expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![18, 19], "{err}");
        let undated = format!(
            "{GOOD}first_sight = {{ verdict = \"same\", fake = \"7f78eed\", scored = \"1 Dec\" }}\n"
        );
        let err = parse(&undated).expect_err("rejects");
        assert!(
            err.iter()
                .any(|d| d.hint.as_deref().unwrap_or("").contains("YYYY-MM-DD")),
            "{err}"
        );
    }

    #[test]
    fn the_first_sight_verdict_is_read_and_checked() {
        let text = format!(
            "{GOOD}first_sight = {{ verdict = \"different\", fake = \"7f78eed\", scored = \"2026-12-01\", note = \"exit: 1 vs 0\" }}\n"
        );
        let c = &parse(&text).expect("parses").captures[0];
        let sight = c.first_sight.as_ref().expect("first_sight");
        assert_eq!(sight.verdict, super::super::FirstSightVerdict::Different);
        let bad = format!(
            "{GOOD}first_sight = {{ verdict = \"different\", fake = \"7f78eed\", scored = \"2026-12-01\" }}\n"
        );
        let err = parse(&bad).expect_err("rejects");
        assert_eq!(err.len(), 1, "{err}");
    }

    #[test]
    fn a_repeated_id_is_reported_at_its_second_use() {
        let err = parse(&format!("{GOOD}{GOOD}")).expect_err("rejects");
        assert_eq!(err.len(), 1, "{err}");
        assert!(err.0[0].message.contains("used twice"), "{err}");
        assert_eq!(err.0[0].line, 19);
    }

    #[test]
    fn hashes_must_match_the_files_and_transforms_be_known() {
        let text = format!("{GOOD}transforms = [\"trim-end\"]\n");
        assert_eq!(
            parse(&text).expect("parses").captures[0].transforms,
            vec!["trim-end"]
        );
        let bad = GOOD.replace("sha256       = { stdout", "sha256       = { stderr")
            + "transforms = [\"tidy\"]\n";
        let err = parse(&bad).expect_err("rejects");
        let lines: Vec<usize> = err.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![15, 18], "{err}");
        assert!(
            err.0[1]
                .hint
                .as_deref()
                .unwrap_or("")
                .contains("go-html-unescape"),
            "{err}"
        );
        let missing = GOOD.replace("sha256       = { stdout = \"", "# ");
        let err = parse(&missing).expect_err("rejects");
        assert!(err.0[0].message.contains("missing `sha256`"), "{err}");
    }

    #[test]
    fn a_bad_commit_and_id_are_reported() {
        let text = GOOD
            .replace("2a7bb078ee6c76512030f351d1f2251562bbd32c", "2a7bb07")
            .replace("pb-1.3.1-success-pong", "PB_pong");
        let err = parse(&text).expect_err("rejects");
        let keys: Vec<&str> = err.iter().map(|d| d.message.as_str()).collect();
        assert!(keys.iter().any(|m| m.contains("`id`")), "{err}");
        assert!(keys.iter().any(|m| m.contains("`source`")), "{err}");
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(s in "\\PC*") {
            let _ = parse(&s);
        }

        #[test]
        fn arbitrary_corpus_shaped_text_never_panics(
            lines in proptest::collection::vec(
                prop_oneof![
                    Just("[[capture]]".to_string()),
                    "[a-z_]{1,12} = \"[a-z0-9 .-]{0,8}\"",
                    "[a-z_]{1,12} = [0-9]{1,3}",
                    "(argv|stdin) = \\[\"[a-z]{0,4}\"\\]",
                    "(source|files) = \\{ [a-z]{1,6} = \"[a-z/]{0,6}\" \\}",
                ],
                0..20,
            )
        ) {
            let _ = parse(&lines.join("\n"));
        }
    }
}
