//! Prose around pasted output: a line that is neither JSON nor agy's stderr says
//! something when it matches one of these patterns, and is ignored otherwise.

use agy_protocol::AgyVersion;
use regex::Regex;
use std::sync::LazyLock;

/// What one prose line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// `$ agy …`: the argv of a new invocation.
    Argv(Vec<String>),
    /// `agy 1.2.6`, `agy version 1.2.6`, `Antigravity CLI 1.2.6`, `**agy** 1.2.6`.
    Version(AgyVersion),
    /// `exit status 1`, `exit code 0`, `exited with 1`.
    Exit(i32),
    /// `no image in the brain folder`, `2 images in brain/…`.
    Images(usize),
    /// A file in the brain folder: `brain/<id>/name.jpg`.
    BrainFile(String),
    /// `agy hangs`, `never exits`.
    Hangs,
    /// `ignores SIGTERM`.
    IgnoresSigterm,
}

/// Why a prose line that looks like a command cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintError {
    /// Column (1-based) where the problem is.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub hint: String,
}

/// The patterns are literals of this file; a bad one is `None` (never matching), which
/// the tests below catch.
type Pattern = LazyLock<Option<Regex>>;

fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

fn captures<'a>(p: &Pattern, line: &'a str) -> Option<regex::Captures<'a>> {
    p.as_ref()?.captures(line)
}

fn is_match(p: &Pattern, line: &str) -> bool {
    p.as_ref().is_some_and(|r| r.is_match(line))
}

static VERSION: Pattern = LazyLock::new(|| {
    // Markdown emphasis and code marks around the name or the number are common in
    // issues: `**agy** 1.2.17`, `_Antigravity CLI_ v1.2.17`.
    re(
        r"(?i)(?:^|[^a-z0-9])(?:agy|antigravity(?: cli)?)(?: cli)?[*_`]*(?:\s+version)?[*_`]*[\s:]+[*_`]*v?(\d+\.\d+\.\d+)\b",
    )
});
static EXIT: Pattern = LazyLock::new(|| {
    re(r"(?i)\bexit(?:ed)?(?:\s+with)?(?:\s+(?:status|code))?\s*[:=]?\s*(-?\d{1,3})\b")
});
static IMAGES: Pattern = LazyLock::new(|| {
    re(r"(?i)\b(no|zero|one|two|three|four|\d{1,2})\s+(?:\w+\s+)?(?:images?|jpe?gs?|files?)\b")
});
static BRAIN_FILE: Pattern = LazyLock::new(|| re(r"(?i)brain/[^/\s]+/([^\s/]+\.(?:jpe?g|png))\b"));
static HANGS: Pattern = LazyLock::new(|| {
    re(
        r"(?i)\b(?:hangs?|hung|never (?:exits|exited|returns|returned|finishes|finished|ends|ended))\b",
    )
});
static SIGTERM: Pattern =
    LazyLock::new(|| re(r"(?i)\bignor\w*\s+(?:the\s+)?SIGTERM\b|\bSIGTERM\b.*\bignored\b"));

/// The hints of one prose line (several can hold at once).
pub fn read_hints(line: &str) -> Result<Vec<Hint>, HintError> {
    let trimmed = line.trim_start();
    if let Some(cmd) = trimmed
        .strip_prefix("$ ")
        .or_else(|| trimmed.strip_prefix("% "))
    {
        let offset = line.len() - cmd.len();
        if let Some(argv) = read_command(cmd, offset)? {
            return Ok(vec![Hint::Argv(argv)]);
        }
    }
    let mut hints = Vec::new();
    if let Some(v) = captures(&VERSION, line).and_then(|c| c[1].parse().ok()) {
        hints.push(Hint::Version(v));
    }
    if let Some(code) = captures(&EXIT, line).and_then(|c| c[1].parse().ok()) {
        hints.push(Hint::Exit(code));
    }
    let lower = line.to_ascii_lowercase();
    if lower.contains("brain") || lower.contains("image") {
        hints.extend(brain_files(line).unwrap_or_default());
        if let Some(n) = captures(&IMAGES, line).and_then(|c| count_word(&c[1])) {
            hints.push(Hint::Images(n));
        }
    }
    if is_match(&HANGS, line) {
        hints.push(Hint::Hangs);
    }
    if is_match(&SIGTERM, line) {
        hints.push(Hint::IgnoresSigterm);
    }
    Ok(hints)
}

fn brain_files(line: &str) -> Option<Vec<Hint>> {
    let files: Vec<Hint> = BRAIN_FILE
        .as_ref()?
        .captures_iter(line)
        .map(|c| Hint::BrainFile(c[1].to_string()))
        .collect();
    (!files.is_empty()).then_some(files)
}

fn count_word(w: &str) -> Option<usize> {
    match w.to_ascii_lowercase().as_str() {
        "no" | "zero" => Some(0),
        "one" => Some(1),
        "two" => Some(2),
        "three" => Some(3),
        "four" => Some(4),
        n => n.parse().ok(),
    }
}

/// `agy …` (or a path ending in `/agy`) split the way a POSIX shell splits it; `None`
/// when the command is another program.
fn read_command(cmd: &str, offset: usize) -> Result<Option<Vec<String>>, HintError> {
    let first = cmd.split_whitespace().next().unwrap_or_default();
    if first != "agy" && !first.ends_with("/agy") {
        return Ok(None);
    }
    match shlex::split(cmd) {
        Some(mut argv) if !argv.is_empty() => {
            argv[0] = "agy".into();
            Ok(Some(argv))
        }
        _ => Err(HintError {
            column: offset + 1,
            message: "the `$ agy …` command line does not split into words (an unclosed quote?)"
                .into(),
            hint: "paste the command as typed in a POSIX shell, or give it with `--argv`".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for r in [&VERSION, &EXIT, &IMAGES, &BRAIN_FILE, &HANGS, &SIGTERM] {
            assert!(r.is_some());
        }
    }

    #[test]
    fn a_command_line_gives_the_argv() {
        let h = read_hints("$ agy -p 'a purple hexagon' --output-format json").expect("reads");
        assert_eq!(
            h,
            vec![Hint::Argv(
                ["agy", "-p", "a purple hexagon", "--output-format", "json"]
                    .map(String::from)
                    .to_vec()
            )]
        );
    }

    #[test]
    fn an_unclosed_quote_is_located() {
        let e = read_hints("  $ agy -p 'oops").expect_err("rejects");
        assert_eq!(e.column, 5);
    }

    #[test]
    fn version_exit_images_and_signals_are_read_from_prose() {
        let v: AgyVersion = "1.2.6".parse().expect("version");
        assert_eq!(
            read_hints("Using agy 1.2.6 on linux"),
            Ok(vec![Hint::Version(v)])
        );
        let bold: AgyVersion = "1.2.17".parse().expect("version");
        for markdown in [
            "**agy** 1.2.17",
            "- **agy version**: 1.2.17",
            "agy: `1.2.17`",
            "_Antigravity CLI_ v1.2.17",
        ] {
            assert_eq!(
                read_hints(markdown),
                Ok(vec![Hint::Version(bold)]),
                "{markdown}"
            );
        }
        assert_eq!(read_hints("exit status 3"), Ok(vec![Hint::Exit(3)]));
        assert_eq!(read_hints("it exited with code 0"), Ok(vec![Hint::Exit(0)]));
        assert_eq!(
            read_hints("There was no image in the brain folder."),
            Ok(vec![Hint::Images(0)])
        );
        assert_eq!(
            read_hints("brain/4b1f/hexagon_1.jpg brain/4b1f/hexagon_2.jpg"),
            Ok(vec![
                Hint::BrainFile("hexagon_1.jpg".into()),
                Hint::BrainFile("hexagon_2.jpg".into())
            ])
        );
        assert_eq!(
            read_hints("agy hangs and ignores SIGTERM"),
            Ok(vec![Hint::Hangs, Hint::IgnoresSigterm])
        );
        assert_eq!(read_hints("Thanks for looking!"), Ok(vec![]));
    }
}
