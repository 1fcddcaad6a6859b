//! One problem in an input file, and the list a parser collects.

use super::source::SourceFile;
use std::fmt;

/// A problem at a place in a file, with a hint on what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Display path of the file.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, as a lowercase fragment.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
    /// The offending source line, for display: at most [`SNIPPET_CHARS`] characters of
    /// it around the column (`…` marks a cut).
    pub snippet: Option<String>,
    /// Characters of the line before the snippet's first, so the caret lands under
    /// `column`.
    pub snippet_shift: usize,
}

/// The most characters of a source line a diagnostic quotes.
pub const SNIPPET_CHARS: usize = 120;

/// The most diagnostics shown for one file; the rest are counted in one more.
pub const MAX_PER_FILE: usize = 50;

fn printable(chars: impl Iterator<Item = char>) -> String {
    chars
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect()
}

/// At most [`SNIPPET_CHARS`] characters of `line` around 1-based `column`, and how many
/// characters of the line come before the excerpt's first.
/// Control characters (a lone CR, an escape) print as spaces, so a quoted line cannot
/// move the cursor or colour the terminal.
fn excerpt(line: &str, column: usize) -> (String, usize) {
    let count = line.chars().count();
    if count <= SNIPPET_CHARS {
        return (printable(line.chars()), 0);
    }
    let start = column
        .saturating_sub(1 + SNIPPET_CHARS / 2)
        .min(count - SNIPPET_CHARS);
    let text = printable(line.chars().skip(start).take(SNIPPET_CHARS));
    let tail = if start + SNIPPET_CHARS < count {
        "…"
    } else {
        ""
    };
    match start {
        0 => (format!("{text}{tail}"), 0),
        _ => (format!("…{text}{tail}"), start - 1),
    }
}

impl Diagnostic {
    /// A problem at byte `offset` of `src`.
    pub fn at(src: &SourceFile, offset: usize, message: impl Into<String>) -> Diagnostic {
        let (line, column) = src.location(offset);
        let (snippet, snippet_shift) = excerpt(src.line_text(line), column);
        Diagnostic {
            path: src.path().to_string(),
            line,
            column,
            message: message.into(),
            hint: None,
            snippet: Some(snippet),
            snippet_shift,
        }
    }

    /// A problem at a known line and column (formats without spans count lines).
    pub fn at_line(
        path: impl Into<String>,
        line: usize,
        column: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            path: path.into(),
            line,
            column,
            message: message.into(),
            hint: None,
            snippet: None,
            snippet_shift: 0,
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a hint when there is one.
    pub fn with_hint_opt(mut self, hint: Option<String>) -> Diagnostic {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error: {}", self.message)?;
        write!(f, "  --> {}:{}:{}", self.path, self.line, self.column)?;
        if let Some(snippet) = &self.snippet {
            let gutter = self.line.to_string();
            let pad = " ".repeat(gutter.len());
            write!(f, "\n {pad} |\n {gutter} | {snippet}\n {pad} | ")?;
            let caret = self.column.saturating_sub(1 + self.snippet_shift);
            write!(f, "{}^", " ".repeat(caret))?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\nhelp: {hint}")?;
        }
        Ok(())
    }
}

/// All problems found in one or more files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// No problems yet.
    pub fn new() -> Diagnostics {
        Diagnostics(Vec::new())
    }

    /// Records a problem.
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of problems.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The problems, in file order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    /// Appends another list.
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// Sorts by file, line, column, keeping the first of exact duplicates and at most
    /// [`MAX_PER_FILE`] of each file (one more diagnostic counts the rest).
    pub fn sort(&mut self) {
        self.0
            .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        self.0.dedup();
        let mut kept: Vec<Diagnostic> = Vec::new();
        let mut dropped = 0usize;
        for d in self.0.drain(..) {
            let same = kept.iter().rev().take_while(|k| k.path == d.path).count();
            if same < MAX_PER_FILE {
                if dropped > 0 {
                    kept.push(more_problems(&kept, dropped));
                    dropped = 0;
                }
                kept.push(d);
            } else {
                dropped += 1;
            }
        }
        if dropped > 0 {
            kept.push(more_problems(&kept, dropped));
        }
        self.0 = kept;
    }

    /// `Ok(value)` when nothing was recorded, otherwise the sorted problems.
    pub fn into_result<T>(mut self, value: T) -> Result<T, Diagnostics> {
        if self.is_empty() {
            Ok(value)
        } else {
            self.sort();
            Err(self)
        }
    }
}

/// The diagnostic that counts the `dropped` problems after the last of `kept`.
fn more_problems(kept: &[Diagnostic], dropped: usize) -> Diagnostic {
    let last = kept.last();
    Diagnostic::at_line(
        last.map(|d| d.path.clone()).unwrap_or_default(),
        last.map_or(1, |d| d.line),
        last.map_or(1, |d| d.column),
        format!("{dropped} more problems in this file are not shown"),
    )
    .with_hint("fix the ones above and check again")
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_shows_location_snippet_caret_and_hint() {
        let src = SourceFile::new("s.toml", "a = 1\nexti = 3\n");
        let d = Diagnostic::at(&src, 6, "unknown key `exti`").with_hint("did you mean `exit`?");
        assert_eq!(
            d.to_string(),
            "error: unknown key `exti`\n  --> s.toml:2:1\n   |\n 2 | exti = 3\n   | ^\nhelp: did you mean `exit`?"
        );
    }

    #[test]
    fn a_long_line_is_quoted_as_an_excerpt_with_the_caret_in_place() {
        let line = format!("{}BAD{}", "a".repeat(5000), "b".repeat(5000));
        let src = SourceFile::new("s.toml", line);
        let text = Diagnostic::at(&src, 5000, "bad").to_string();
        assert!(text.len() < 2 * SNIPPET_CHARS + 200, "{text}");
        let snippet = text.lines().nth(3).expect("snippet line");
        let caret = text.lines().nth(4).expect("caret line");
        let at = caret.find('^').expect("caret");
        let under: String = snippet.chars().skip(at).take(3).collect();
        assert_eq!(under, "BAD", "{snippet}\n{caret}");
        let short = Diagnostic::at(&SourceFile::new("s", "ab"), 1, "x").to_string();
        assert!(short.contains(" 1 | ab\n   |  ^"), "{short}");
        let escape = Diagnostic::at(&SourceFile::new("s", "a\u{1b}[31mb\rc"), 0, "x").to_string();
        assert!(escape.contains(" 1 | a [31mb c\n"), "{escape}");
    }

    #[test]
    fn diagnostics_per_file_are_capped_and_the_rest_counted() {
        let mut diags = Diagnostics::new();
        for line in 1..=1000 {
            diags.push(Diagnostic::at_line("a.toml", line, 1, "bad"));
        }
        diags.push(Diagnostic::at_line("b.toml", 1, 1, "bad"));
        let err = diags.into_result(()).expect_err("problems");
        assert_eq!(err.len(), MAX_PER_FILE + 2, "{err}");
        assert!(
            err.to_string()
                .contains("950 more problems in this file are not shown"),
            "{err}"
        );
        assert_eq!(err.0.last().map(|d| d.path.as_str()), Some("b.toml"));
    }
}
